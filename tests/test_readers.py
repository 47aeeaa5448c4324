"""The evidence readers on the sample's index: one protocol, a modality added as one reader plus its weight."""

from __future__ import annotations

import pytest

from agents.llm import load_llm
from agents.readers import READERS, CandidateView, Reading, SoundReader, read_candidate
from agents.schema import Evidence, Intent, Proposal
from agents.state import RunContext, RunSettings
from graphs.pipeline import open_index
from indexing.observe import observe_span
from tests.conftest import REPO
from tools.perception.sound import SoundStats
from tools.signals.social import social_frames

SAMPLE = REPO / "samples" / "hamilton_short.mp4"


@pytest.fixture(scope="module")
def index(cache_root):
    return open_index(SAMPLE, cache_dir=cache_root)


def view_of(index, clip, question: str, targets: list[str]) -> CandidateView:
    """The view the verifier gives its readers of one index clip, for a question read as ``targets``."""
    ctx = RunContext(index=index, llm=load_llm("offline"), settings=RunSettings())
    stored, tools = observe_span(index, 4.0, clip.start_s, clip.end_s, ctx.count)
    cand = Proposal(clip_id=clip.id, start_s=clip.start_s, end_s=clip.end_s, retrieval_score=1.0, source="clips")
    intent = Intent(target_emotions=targets, search_text=question)
    return CandidateView(ctx=ctx, cand=cand, intent=intent, texts=[question], stored=stored, tools=tools,
                         frames=social_frames([fr for fr, _ in stored], index.face_person), step=0.25, persons=set())


def test_the_sample_is_speech_throughout_so_no_clip_cites_its_sound(index):
    """The performer raps over the whole sample (``docs/LIMITATIONS.md``: speech in all of every clip)."""
    assert {c.sound.kind for c in index.clips} == {"speech"}
    for clip in index.clips[:3]:
        assert SoundReader().read(view_of(index, clip, "right before the music swells", [])) == Reading([], 0.0, None)


def test_music_that_swells_is_cited_and_supports_a_question_about_it_but_not_an_emotion(index, monkeypatch):
    clip = index.clips[1]
    swell = SoundStats(kind="music", loudness_dbfs=-20.0, change_db=8.0, speech_share=0.1, flatness=0.05)
    monkeypatch.setattr(clip, "sound", swell)
    asked = SoundReader().read(view_of(index, clip, "right before the music swells", []))
    assert [e.detail for e in asked.evidence] == ["music playing, getting louder (-20 dBFS, +8 dB over the clip)"]
    assert asked.evidence[0].modality == "vocal" and asked.evidence[0].ref.endswith(f"clips.json#{clip.id}")
    assert asked.support > 0.3  # above the verifier's default min_support: the clip is accepted on it
    other = SoundReader().read(view_of(index, clip, "when does someone point at another person?", []))
    assert other.support < 0.1
    feeling = SoundReader().read(view_of(index, clip, "when is someone happy?", ["happiness"]))
    assert feeling.evidence == asked.evidence and feeling.support == 0.0


class Nods:
    """A reader added beside the others: one class and its weight, nothing else changed."""

    section = ""

    def read(self, view: CandidateView) -> Reading:
        ev = Evidence(id=f"{view.cand.clip_id}.h", modality="visual", tool="nods", start_s=view.cand.start_s,
                      end_s=view.cand.end_s, detail="a head nods", ref="")
        return Reading([ev], 0.9, None)

    def weight(self, intent: Intent) -> float:
        return 0.5


def test_a_modality_is_one_reader_and_its_weight(index):
    view = view_of(index, index.clips[2], "when does someone enjoy the show?", ["happiness"])
    base = read_candidate(view)
    more = read_candidate(view, (*READERS, Nods()))
    assert more.evidence == [*base.evidence, *Nods().read(view).evidence]
    assert more.supports == {**base.supports, "Nods": 0.9}
    assert more.support == max(base.support, 0.45)
    assert more.observations == base.observations
    assert {e.modality for e in base.evidence} >= {"visual", "verbal"}


def test_each_label_shows_from_its_first_to_its_last_frame_at_half_its_peak(index):
    """The face reader's ``shown_s`` on the sample's real frames (4 fps): per label, a span inside the clip that holds
    every frame where some face reads that label at half its peak or more, and whose first and last frames do."""
    from agents.readers import FaceReader

    happy = []
    for clip in index.clips:
        view = view_of(index, clip, "when does someone enjoy the show?", ["happiness"])
        shown = FaceReader().read(view).observations.shown_s
        happy += [shown["happiness"]] if "happiness" in shown else []
        per_frame = [(fr.t, fr.faces) for fr, _ in view.stored if fr.faces]
        assert per_frame and set(shown) <= set(per_frame[0][1][0].expression)
        for label, (start, end) in shown.items():
            assert clip.start_s <= start < end <= clip.end_s
            p = [(t, max(f.expression[label] for f in faces)) for t, faces in per_frame]
            peak = max(v for _, v in p)
            at_half = [t for t, v in p if v >= 0.5 * peak]
            assert start <= min(at_half) and max(at_half) <= end  # every such frame is inside
            assert start >= min(at_half) - 0.125 - 1e-3 and end <= max(at_half) + 0.125 + 1e-3  # and it starts/ends there
    assert any(start < 7.88 and end > 3.58 for start, end in happy)  # the performer's grin in his close-up


def test_the_faces_around_a_gesture_are_the_gesturers_else_the_questions_people(index):
    """The performer's pointing in his shot (watched: 4-7.5 s): the faces read around it are his, within
    ``GESTURE_PAD_S`` of it, and the face cited shows their mean's label; a gesture by nobody known reads the question's
    people there (everyone when it names none), and none of them seen there gives nothing. The candidate's readers
    cite each thing said of a record once."""
    import numpy as np

    from agents.behaviour_evidence import behaviour_expression, padded
    from agents.readers import BehaviourReader

    clip = next(c for c in index.clips if c.start_s <= 5.35 < c.end_s)
    view = view_of(index, clip, "when does he point at someone?", [])
    point = next(e for e in BehaviourReader().read(view).evidence if "points with the index finger" in e.detail)
    lo, hi = padded((point.start_s, point.end_s))
    near = [f for fr, _ in view.stored if lo <= fr.t <= hi for f in fr.faces]

    def mean_of(faces) -> dict[str, float]:
        return {k: pytest.approx(float(np.mean([f.expression[k] for f in faces])), abs=1e-4)
                for k in faces[0].expression}

    def around(event, persons):
        return behaviour_expression(index, view.cand, view.stored, event, persons, view.tools["face"], view.step)

    his = [f for f in near if index.face_person(f) == point.person]
    cited, mean = around(point, set())
    assert point.person is not None and his and mean == mean_of(his)
    assert [e.person for e in cited] == [point.person] and f"shows {max(mean, key=mean.get)} (" in cited[0].detail
    nobody = point.model_copy(update={"person": None})
    assert around(nobody, set())[1] == mean_of(near)
    assert around(nobody, {point.person})[1] == mean_of(his)
    assert around(nobody, {10_000}) == ([], {})  # a person id no face here has
    said = read_candidate(view).evidence
    assert len({e.key for e in said}) == len(said)


def test_an_open_feeling_question_is_supported_by_the_strongest_feeling_not_by_a_gesture(index):
    """"How does the performer feel?" names no gesture: the pointing clip's gestures are evidence, not support, and the
    faces support it by the strongest feeling one shows against their usual look, not by all feelings summed (that
    is 1 - neutral, which cleared the acceptance floor on every face of the sample; section 145)."""
    from agents.readers import BehaviourReader, FaceReader
    from tools.core.schema import AFFECTNET8

    clip = next(c for c in index.clips if c.start_s <= 5.5 < c.end_s)  # the performer points at 5.3-5.6 s
    def open_view(question: str) -> CandidateView:
        view = view_of(index, clip, question, [])
        return CandidateView(**{**view.__dict__, "intent": view.intent.model_copy(update={"asks_feeling": True})})

    view = open_view("how does the performer feel?")
    reading = BehaviourReader().read(view)
    assert reading.support == 0.0 and any("points" in e.detail for e in reading.evidence)
    assert BehaviourReader().read(open_view("what does he feel when he points?")).support > 0.0  # a gesture places it
    faces = [f for fr, _ in view.stored for f in fr.faces]
    strongest = max(max(index.salient_p(f, [k]) for k in AFFECTNET8 if k != "neutral") for f in faces)
    summed = max(index.salient_p(f, [k for k in AFFECTNET8 if k != "neutral"]) for f in faces)
    support = FaceReader().read(view).support
    assert 0.0 < support <= strongest + 1e-9 and strongest < summed
