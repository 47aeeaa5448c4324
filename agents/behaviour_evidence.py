"""Visual evidence of what people do in one candidate clip, for the verifier's behaviour reader
(``agents.readers.BehaviourReader``): salient gestures with who made them and at whom (``gesture_evidence``), social
events between tracks, GRASP-style gaze, pointing, addressing, exclusion, and looking at or away from the camera
(``social_evidence``), how well those texts match a question (``behaviour_match``: a look the question denies,
``tools.signals.gaze_words.asked_look``, matches nothing) and what the faces of whoever makes the best match show
around it (``behaviour_expression``). Times are seconds; each item cites the stored record it rests on
(``Evidence.ref``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.evidence import face_item, index_sure_speakers, mean_expression, text_matches
from agents.observations import BehaviourObservations
from agents.schema import Evidence, Proposal
from memory.store import VideoIndex
from tools.core.schema import Gaze
from tools.perception.engine import FrameObservation
from tools.signals.events import social_timeline
from tools.signals.gaze_words import AskedLook, asked_look, without_look_words
from tools.signals.lexicon import names_behaviour
from tools.signals.social import GESTURE_EVENT_TYPES, SocialFrame, hand_owner

#: Gestures cited as evidence (a fist around a microphone says little).
SALIENT_GESTURES = {"point": "points with the index finger", "palm": "shows an open palm",
                    "like": "gives a thumbs up", "dislike": "gives a thumbs down",
                    "hand_over_mouth": "puts a hand over the mouth", "hand_over_face": "puts a hand over the face",
                    "crossed_arms": "crosses the arms"}
MAX_GESTURE_EVIDENCE = 2
#: Seconds added on each side of the gesture or gaze event that sets the span of a behaviour question
#: (a gesture's preparation and retraction around its stroke; McNeill, 1992, "Hand and Mind").
GESTURE_PAD_S = 1.0
MAX_SOCIAL_EVIDENCE = 3
#: Social events that are looks, and which way (``Evidence.look``).
EVENT_LOOKS = {"mutual_gaze": "toward", "one_sided_gaze": "toward", "gaze_aversion": "away"}
#: Frames in a row, each read as not looking at the camera (``tools.perception.gaze.CAMERA_RADIUS``), that make a look
#: away from it: two frames at the verifier's 4 fps, a quarter of a second apart, so one frame's misread face mesh is
#: not one.
MIN_AWAY_FRAMES = 2
#: How a look away from the camera is said: the words users ask it in too ("averting the eyes, no eye contact"), which
#: the sentence encoder otherwise puts far from "looks away" (``studies.gaze_polarity``'s ``detail_wording``).
AWAY_FROM_CAMERA = "looks away from the camera, averting the eyes, no eye contact with it"


def padded(span: list[float] | tuple[float, float]) -> tuple[float, float]:
    """A gesture's or look's (start, end) in seconds widened by ``GESTURE_PAD_S`` on each side: the span of a behaviour
    question's moment (inside its candidate), and where the faces around it are read."""
    return span[0] - GESTURE_PAD_S, span[1] + GESTURE_PAD_S


def gesture_evidence(index: VideoIndex, cand: Proposal, stored: list[tuple[FrameObservation, Path]], tool: str,
                     step: float) -> list[Evidence]:
    """Up to ``MAX_GESTURE_EVIDENCE`` salient gestures (pointing first) with who made them and at whom.

    ``tool`` is ``"<gesture tool>|<gaze tool>"`` as ``observe_span`` names them; ``step`` the frame interval (s).
    """
    seen = [(h, fr, path) for fr, path in stored for h in fr.hands if h.gesture in SALIENT_GESTURES]
    seen.sort(key=lambda x: (x[0].gesture != "point", x[0].t))
    evidence, kinds = [], set()
    for h, fr, path in seen:
        if h.gesture in kinds or len(evidence) >= MAX_GESTURE_EVIDENCE:
            continue
        kinds.add(h.gesture)
        owner = hand_owner(fr, h, index.face_person)
        who = f"person {owner}" if owner is not None else "someone"
        at = ""
        if h.target_box is not None and h.target_box < len(fr.faces):
            target = fr.faces[h.target_box]
            tt = index.face_person(target)
            at = f" at person {tt}" if tt is not None else " at another face"
        evidence.append(Evidence(
            id=f"{cand.clip_id}.g{len(evidence)}", modality="visual", tool=tool.split("|")[0], start_s=h.t,
            end_s=round(min(cand.end_s, h.t + step), 3), person=owner,
            detail=f"{who} {SALIENT_GESTURES[h.gesture]}{at} ({h.gesture})", ref=index.cache.ref(path, h.id)))
    return evidence


def social_evidence(index: VideoIndex, cand: Proposal, stored: list[tuple[FrameObservation, Path]],
                    frames: list[SocialFrame], tool: str, step: float, away_from_camera: bool = False
                    ) -> list[Evidence]:
    """Social events between tracks (GRASP-style gaze, pointing, addressing, exclusion) and
    looking at the camera, as visual evidence citing the stored gaze or hand records; with ``away_from_camera`` (a
    question that asks for a look away from the camera, ``asks_for``) also each person's
    longest look away from the camera (``MIN_AWAY_FRAMES``). Another question does not get them: in a crowd shot most
    faces look away from the camera, and "when does he point at someone?" matched such a look above the verifier's
    support floor (``evals/RESULTS.md`` section 173)."""
    where = {rec.id: path for fr, path in stored for rec in [*fr.gaze, *fr.hands]}
    events = [e for e in social_timeline(frames, index.transcript.segments, cand.start_s, cand.end_s, max_gap_s=1.5 * step,
                                         known_speakers=index.segment_speakers,
                                         sure_speakers=index_sure_speakers(index))
              if e.type not in GESTURE_EVENT_TYPES]  # gestures are cited by gesture_evidence
    camera: dict[int, list[tuple[float, Gaze]]] = {}
    for fr in frames:
        for tr, g in zip(fr.tracks, fr.gaze, strict=False):
            if tr is not None and g.looking_at_camera is not None:
                camera.setdefault(tr, []).append((fr.t, g))
    gaze_tool = tool.split("|")[-1]
    evidence = []
    for e in events[:MAX_SOCIAL_EVIDENCE]:
        rid = e.observation_ids[0]
        evidence.append(Evidence(
            id=f"{cand.clip_id}.s{len(evidence)}", modality="visual",
            tool=tool.split("|")[0] if e.type == "pointing_at" else gaze_tool, start_s=e.start_s, end_s=round(min(cand.end_s, e.end_s + step), 3),
            person=e.participants[0], detail=f"{e.detail} ({e.type}, {e.confidence:.0%} of frames)",
            ref=index.cache.ref(where[rid], rid), look=EVENT_LOOKS.get(e.type),
            look_target="person" if e.type in EVENT_LOOKS else None))
    for tr, gs in sorted(camera.items()):
        at = [g for _, g in gs if g.looking_at_camera]
        if len(at) * 2 > len(gs):
            evidence.append(Evidence(
                id=f"{cand.clip_id}.c{tr}", modality="visual", tool=gaze_tool, start_s=cand.start_s, end_s=cand.end_s,
                person=tr, detail=f"person {tr} looks at the camera in {len(at)} of {len(gs)} frames",
                ref=index.cache.ref(where[at[0].id], at[0].id), look="toward", look_target="camera"))
        away = _longest_away(gs, max_gap_s=1.5 * step) if away_from_camera else []
        if len(away) >= MIN_AWAY_FRAMES:
            n_away = sum(1 for _, g in gs if not g.looking_at_camera)
            evidence.append(Evidence(
                id=f"{cand.clip_id}.w{tr}", modality="visual", tool=gaze_tool, start_s=away[0][0],
                end_s=round(min(cand.end_s, away[-1][0] + step), 3), person=tr,
                detail=f"person {tr} {AWAY_FROM_CAMERA} ({len(away)} frames in a row; {n_away} of {len(gs)})",
                ref=index.cache.ref(where[away[0][1].id], away[0][1].id), look="away", look_target="camera"))
    return evidence


def _longest_away(gazes: list[tuple[float, Gaze]], max_gap_s: float) -> list[tuple[float, Gaze]]:
    """The longest run of one person's (time in seconds, gaze) records, in time order, that do not look at the camera,
    none more than ``max_gap_s`` after the one before (the earliest of equal runs); [] when every record looks at it."""
    best: list[tuple[float, Gaze]] = []
    run: list[tuple[float, Gaze]] = []
    for t, g in sorted(gazes, key=lambda x: x[0]):
        if g.looking_at_camera:
            run = []
            continue
        run = [*run, (t, g)] if run and t - run[-1][0] <= max_gap_s else [(t, g)]
        if len(run) > len(best):
            best = run
    return best


def behaviour_match(index: VideoIndex, texts: list[str], evidence: list[Evidence]
                    ) -> tuple[float, BehaviourObservations]:
    """(best ``speech_match`` of the query texts against gesture / social evidence texts, the observation
    the emotion reasoner reads: that evidence's span (s), id and match); (0, nothing set) without any. For a question
    (``texts[0]``) that asks about a look (``asked_look``) only looks its way match (``asks_for``), at what it names (the camera, or
    someone else), and what is not a look only where it asks about more than the look ("when does he look at her and
    point?"; ``evals/RESULTS.md`` section 173)."""
    asked = asked_look(texts[0]) if texts else None
    if asked is not None:
        also = names_behaviour(without_look_words(texts[0]), looks=False)
        evidence = [e for e in evidence if (also if e.look is None else asks_for(asked, e.look, e.look_target))]
    if not evidence:
        return 0.0, BehaviourObservations()
    scores = text_matches(index, texts, [e.detail for e in evidence])
    best = int(np.argmax(scores))
    e = evidence[best]
    return scores[best], BehaviourObservations(span=[e.start_s, e.end_s], evidence_id=e.id, match=round(scores[best], 4))


def asks_for(asked: AskedLook | None, look: str | None, target: str | None) -> bool:
    """Whether the look a question asks about (``asked``; None: none) is a look ``look`` (toward or away, as
    ``Evidence.look``) at or from ``target`` (the camera or a person, as ``Evidence.look_target``): its direction, and
    the camera where the question names the camera, a person where it names someone or something else, either where
    it names nothing."""
    if asked is None or look != asked.direction:
        return False
    return target == {"camera": "camera", "other": "person", None: target}[asked.target]


def behaviour_expression(index: VideoIndex, cand: Proposal, stored: list[tuple[FrameObservation, Path]],
                         event: Evidence, persons: set[int], tool: str, step: float
                         ) -> tuple[list[Evidence], dict[str, float]]:
    """What the faces show around a gesture or gaze ``event`` (``behaviour_match``'s): the mean AffectNet-8 expression
    ({label: probability}, rounded to 4 places) of the faces ``stored`` shows within ``GESTURE_PAD_S`` of it (its start
    to end, seconds), those of the person making it (``Evidence.person``) when any of theirs is seen there, else those
    of ``persons`` (the question's grounded people; every face when empty), and, as visual evidence (id
    ``<clip>.b0``, ``face_item``), the face among them that shows the mean's top label most; ([], {}) when no such face
    is seen. A question about behaviour names no feeling, so its moment's emotion is the one shown by whoever behaves
    so, while they do: the candidate's whole span can hold other people and other feelings (the sample's performer
    smiling before and after his pointing)."""
    lo, hi = padded((event.start_s, event.end_s))
    near = [(f, path) for fr, path in stored if lo <= fr.t <= hi for f in fr.faces]
    faces = [(f, path) for f, path in near if event.person is not None and index.face_person(f) == event.person] or [
        (f, path) for f, path in near if not persons or index.face_person(f) in persons]
    if not faces:
        return [], {}
    mean = mean_expression([f for f, _ in faces])
    shown = max(mean, key=mean.__getitem__)
    face, path = max(faces, key=lambda x: x[0].expression[shown])
    return [face_item(index, cand, face, path, f"{cand.clip_id}.b0", tool, step)], mean
