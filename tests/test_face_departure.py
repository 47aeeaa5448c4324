"""The verifier's faces against each person's usual reading (``agents.evidence.face_evidence``,
``memory.store.VideoIndex.departure``): what the emotion reasoner names a face by."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import pytest

from agents.evidence import SUPPORT_STRETCH_S, face_evidence
from agents.schema import Proposal
from memory.store import VideoIndex
from tools.core.schema import AFFECTNET8, Box, FaceObservation
from tools.perception.engine import FrameObservation
from tools.signals.stretches import best_stretch
from tools.signals.timeline import departure_reading


def _reading(**probs: float) -> dict[str, float]:
    rest = (1.0 - sum(probs.values())) / (len(AFFECTNET8) - len(probs))
    return {k: probs.get(k, rest) for k in AFFECTNET8}


class _Index:
    """The parts of a ``VideoIndex`` the face evidence reads: person 0 (track 0) has a usual reading that is half
    surprise, as a recorded talking face often has; track 9's person has none."""

    person_baseline: ClassVar[dict] = {0: np.array(list(_reading(neutral=0.30, surprise=0.45, anger=0.05).values()))}
    baseline_shift: ClassVar[dict] = {}
    departure = VideoIndex.departure
    salient_p = VideoIndex.salient_p
    cache = SimpleNamespace(ref=lambda path, face_id: f"{path.name}#{face_id}")

    def face_person(self, face: FaceObservation) -> int | None:
        return 0 if face.track_id == 0 else None


#: Person 0's readings: surprise 0.40 and anger 0.30 for a second, then neutral 0.40 and anger 0.15.
HERS = [_reading(neutral=0.20, surprise=0.40, anger=0.30)] * 4 + [_reading(neutral=0.40, surprise=0.10, anger=0.15)] * 4


def _stored() -> list[tuple[FrameObservation, Path]]:
    """Eight frames at 4 fps from 10 s: person 0 read as ``HERS``; a bystander (track 9) read neutral 0.70."""
    out = []
    for n in range(8):
        t = 10.0 + 0.25 * n
        faces = [FaceObservation(id=f"f{n}.0", t=t, box=Box(x0=0.1, y0=0.1, x1=0.4, y1=0.6), det_score=0.9,
                                 expression=HERS[n], track_id=0),
                 FaceObservation(id=f"f{n}.1", t=t, box=Box(x0=0.6, y0=0.1, x1=0.9, y1=0.6), det_score=0.9,
                                 expression=_reading(neutral=0.70), track_id=9)]
        out.append((FrameObservation(t=t, faces=faces), Path("frames.json")))
    return out


def test_a_face_is_summarised_against_its_persons_usual_reading_and_quoted_and_ranked_as_read():
    cand = Proposal(clip_id="c1", start_s=10.0, end_s=12.0, retrieval_score=0.5, source="affect")
    evidence, support, obs = face_evidence(_Index(), cand, _stored(), "reader", ["anger"], 0.25)
    assert max(obs.expression_mean, key=obs.expression_mean.get) == "neutral"  # both faces, as read
    # person 0's faces against her usual reading, the bystander's as read: the mean of the two
    hers = departure_reading(np.array([list(r.values()) for r in HERS]), _Index.person_baseline[0])
    expected = (hers.mean(axis=0) + np.array(list(_reading(neutral=0.70).values()))) / 2
    assert [obs.departure_mean[k] for k in AFFECTNET8] == pytest.approx(expected, abs=2e-4)
    assert [f.top for f in obs.frames if f.person == 0] == ["anger"] * 4 + ["neutral"] * 4
    assert {f.top for f in obs.frames if f.person is None} == {"neutral"}
    # her anger as read, 0.30 then 0.15, holds half its peak throughout; against her usual reading only its first second
    assert obs.shown_s["anger"] == [10.0, 10.875]
    # the support reads the faces as read: her anger's best 2 s, as read
    assert support == pytest.approx(best_stretch([10.0 + 0.25 * n for n in range(8)], [r["anger"] for r in HERS],
                                                 SUPPORT_STRETCH_S, 0.25))
    hers_cited = [e.detail for e in evidence if e.person == 0]
    assert hers_cited and all("shows surprise (p=0.40; anger 0.30; anger against this person's usual look)" in d
                              for d in hers_cited), hers_cited


def test_without_own_baseline_the_faces_are_summarised_as_read():
    cand = Proposal(clip_id="c1", start_s=10.0, end_s=12.0, retrieval_score=0.5, source="affect")
    evidence, _, obs = face_evidence(_Index(), cand, _stored(), "reader", ["anger"], 0.25, own_baseline=False)
    assert obs.departure_mean == {} and [f.top for f in obs.frames if f.person == 0] == ["surprise"] * 4 + ["neutral"] * 4
    assert obs.shown_s["anger"] == [10.0, 11.875]
    assert not any("usual look" in e.detail for e in evidence)
    assert "departure_mean" not in obs.model_dump(exclude_unset=True)  # nothing of it reaches a hosted judge
