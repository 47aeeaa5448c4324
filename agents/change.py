"""Questions about a change of feeling (EmoTrans's transition questions, seed 003): "when does her mood
change?", "when does he go from calm to angry?", "what does he feel next?" (the first change), and a feeling after an
event, "how does she feel after he leaves?".

- The intent interpreter reads the question's before and after (``ask_change``: ``tools.signals.change_words.change_phrases``
  mapped to AffectNet-8 by ``agents.intent.side_emotions``: a side that only denies an emotion names none).
- The localizer proposes the change points of each person's affect timeline (``tools.signals.timeline``, from the
  index), of the question's people when it names some, where the top emotion differs on the two sides
  (``change_candidates``; a change of intensity alone is no change of feeling): a candidate spans
  ``CHANGE_HALF_S`` either side of the change point, scored by the change's size times how well its two
  sides show the emotions asked (``agreement``).
- A question about a feeling after someone leaves (``tools.signals.change_words.departure_clause``) names the feeling
  after where the rest of it names one (``names_feeling``: an emotion word or a sign on the face, "cry"), and gets the
  departures of the index (``departures``: a person last seen while the shot goes on) with each other person seen
  on both sides of it (``departure_candidates``), scored by how much that person's reading changes across it times
  the agreement.
- The verifier reads that person's faces on either side at its own frame rate (``change_evidence``): the two
  mean readings, their distance, one face cited per side; the support is that distance times the agreement. At a
  departure the point is the leaver's last face at that rate (cited too), and the support the agreement alone: how
  the person feels after it is the answer, whether or not it changed.
- The emotion reasoner names the emotion after the change and the one before (``judge_change``); the
  answer's moment carries both (``agents.change_schema.MomentChange``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.change_schema import ChangeAsk, ChangeObservations
from agents.schema import EmotionJudgement, Evidence, Proposal
from memory.store import VideoIndex
from tools.core.schema import AFFECTNET8
from tools.perception.engine import FrameObservation
from tools.perception.text_emotion import load_text_emotion
from tools.signals.behaviour_words import BEHAVIOUR_ONLY_BELOW
from tools.signals.change_words import asks_next, change_phrases, departure_clause, ending_phrases
from tools.signals.lexicon import MIN_CUE_SIM, emotion_phrase, named_emotions
from tools.signals.open_feeling import asks_open_feeling
from tools.signals.timeline import MIN_CHANGE, MIN_SEGMENT, reading_dict, readings

#: Half-width (s) of a change candidate around its change point: a moment of 4 s, two on each side (the
#: index's clip length), long enough for the verifier to read several frames on each side.
CHANGE_HALF_S = 2.0
#: Fewest faces on each side of a change point the verifier places (``refine_change``).
REFINE_MIN_SIDE = 2
#: Source name of change-point candidates (``Proposal.source``).
SOURCE = "change"


#: Seconds either side of a departure over which another person's reading is compared (``departure_candidates``).
DEPARTURE_WINDOW_S = 4.0


def ask_change(query: str, emotions_of: Callable[[str], list[str]]) -> ChangeAsk | None:
    """The ``ChangeAsk`` of a question about a change of feeling (None for any other question); the before
    and after phrases are read into AffectNet-8 emotions by ``emotions_of`` (``agents.intent.side_emotions``).
    A question about a feeling after someone leaves names the emotion after only when the rest of it names a feeling
    (``names_feeling``: "is she happy once he is gone?", "when does she cry after he leaves?"; not "what does she do
    after he leaves?"). A question about a feeling ending (``tools.signals.change_words.ending_phrases``: "when does he
    stop smiling?", "when does her smile fade?") asks for the change from it to any feeling, or to the one it names
    ("... and start laughing?"), where ``emotions_of`` reads a feeling in what ends (``evals/RESULTS.md`` section 178);
    "when does he stop talking?" is no change."""
    if clause := departure_clause(query):  # the rest: its words without the clause and the place left
        rest = " ".join(re.findall(r"[a-z'-]+", query.lower())).replace(clause, " ", 1)
        return ChangeAsk(after=emotions_of(rest) if names_feeling(rest) else [], departure=True)
    if (ending := ending_phrases(query)) and (ended := emotions_of(ending[0])):  # "when does he stop smiling?"
        return ChangeAsk(before=ended, after=emotions_of(ending[1]) if ending[1] else [], first=asks_next(query))
    phrases = change_phrases(query)
    if phrases is None:
        return None
    before, after = (emotions_of(p) if p else [] for p in phrases)
    return ChangeAsk(before=before, after=after, first=asks_next(query))


def names_feeling(text: str) -> bool:
    """Whether ``text`` (a question's words beside its clause about someone leaving) names a feeling: an emotion word
    (``tools.signals.lexicon.named_emotions``: "happy", "furious") or, in a question that does not ask which feeling
    shows (``tools.signals.open_feeling.asks_open_feeling``: "how does she look", "what is her expression": the
    answer's to name; "what makes her cry" asks her crying), a sign of one on the face:
    its emotion phrase asks for a facial expression (the shipped sentence encoder's similarity to the
    ``facial_expression`` cue at ``tools.signals.lexicon.MIN_CUE_SIM`` or more) and reads as a feeling (its best
    similarity to an emotion's descriptions at ``tools.signals.behaviour_words.BEHAVIOUR_ONLY_BELOW`` or more): "cry",
    "start laughing", "frown"; not "lock the door", "close her eyes", "dance" (``evals/RESULTS.md`` section 182)."""
    if named_emotions(text):
        return True
    if asks_open_feeling(text):
        return False
    emotions, cues = load_text_emotion().similarities(emotion_phrase(text))
    return cues["facial_expression"] >= MIN_CUE_SIM and max(emotions.values()) >= BEHAVIOUR_ONLY_BELOW


def distance(before: dict[str, float], after: dict[str, float]) -> float:
    """Total-variation distance (0..1) between two AFFECTNET8 readings (label -> probability)."""
    return 0.5 * sum(abs(before[k] - after[k]) for k in AFFECTNET8)


def agreement(ask: ChangeAsk, before: dict[str, float], after: dict[str, float]) -> float:
    """How well two readings (label -> probability) show the emotions ``ask`` names before and after: the
    geometric mean of the named sides' summed probabilities; 1.0 when it names neither side."""
    named = [sum(side.get(e, 0.0) for e in emotions) for emotions, side in ((ask.before, before), (ask.after, after))
             if emotions]
    return float(np.prod(named) ** (1 / len(named))) if named else 1.0


def change_candidates(index: VideoIndex, ask: ChangeAsk, persons: set[int], seen: set[str], n: int | None,
                      round_: int) -> list[Proposal]:
    """Up to ``n`` (None: all) unseen change-point candidates, best first (module doc), or earliest first for a question
    about what comes next (``ChangeAsk.first``); of ``persons`` when not empty. A question about a feeling after someone
    leaves gets ``departure_candidates``."""
    if ask.departure:
        return departure_candidates(index, ask, persons, seen, n, round_)
    out = []
    for timeline in index.timelines:
        if persons and timeline.person not in persons:
            continue
        for c in timeline.changes:
            clip_id = f"change-p{timeline.person}-{c.t_s:.2f}"
            score = c.magnitude * agreement(ask, c.before_p, c.after_p)
            if clip_id in seen or score <= 0 or c.before == c.after:  # the same emotion, stronger or weaker
                continue
            out.append(Proposal(clip_id=clip_id, start_s=round(max(c.before_s[0], c.t_s - CHANGE_HALF_S), 3),
                                end_s=round(min(c.after_s[1] + 1e-3, c.t_s + CHANGE_HALF_S), 3),
                                retrieval_score=round(score, 4), source=SOURCE, round=round_,
                                change_s=c.t_s, person=timeline.person))
    return sorted(out, key=lambda p: p.change_s if ask.first else -p.retrieval_score)[:n]


def departures(index: VideoIndex) -> list[tuple[int, float]]:
    """(person, t_s) of each person who leaves the picture: last seen (at the index's frame rate, in at least
    ``MIN_SEGMENT`` frames) at least ``CHANGE_HALF_S`` before the video ends and with no shot cut within a sampling
    interval of that moment (a cut changes the picture; leaving is vanishing from a shot that goes on). ``t_s`` is
    halfway between the last frame with the person and the next one."""
    step = 1.0 / index.config.sample_fps
    out = []
    for tl in index.timelines:
        if len(tl.times_s) < MIN_SEGMENT:
            continue
        t = round(tl.times_s[-1] + step / 2, 3)
        if t + CHANGE_HALF_S <= index.info.duration_s and not any(abs(c - t) <= step for c in index.cuts):
            out.append((tl.person, t))
    return out


def departure_candidates(index: VideoIndex, ask: ChangeAsk, persons: set[int], seen: set[str], n: int | None,
                         round_: int) -> list[Proposal]:
    """Up to ``n`` (None: all) unseen candidates for a question about a feeling after someone leaves: for each departure
    (``departures``) and each other person with ``MIN_SEGMENT`` - 1 frames or more on each side of it within
    ``DEPARTURE_WINDOW_S``, a candidate from ``CHANGE_HALF_S`` before it to twice that after (how the person feels
    after it is the question), scored by (0.1 + the change of that person's smoothed reading across it) times the
    agreement; of ``persons`` (the stayer or the leaver) when not empty."""
    out = []
    for left, t in departures(index):
        for tl in index.timelines:
            if tl.person == left or (persons and not persons & {tl.person, left}):
                continue
            times, x = np.asarray(tl.times_s), np.asarray(tl.smoothed)
            sides = (x[(times >= t - DEPARTURE_WINDOW_S) & (times < t)], x[(times > t) & (times <= t + DEPARTURE_WINDOW_S)])
            clip_id = f"leave-p{left}-p{tl.person}-{t:.2f}"
            if clip_id in seen or min(len(side) for side in sides) < MIN_SEGMENT - 1:
                continue
            before, after = (reading_dict(side.mean(axis=0)) for side in sides)
            out.append(Proposal(clip_id=clip_id, start_s=round(max(0.0, t - CHANGE_HALF_S), 3),
                                end_s=round(min(index.info.duration_s, t + 2 * CHANGE_HALF_S), 3),
                                retrieval_score=round((0.1 + distance(before, after)) * agreement(ask, before, after), 4),
                                source=SOURCE,
                                round=round_, change_s=t, person=tl.person, left=left))
    return sorted(out, key=lambda p: -p.retrieval_score)[:n]


def _mean(faces) -> dict[str, float]:
    return reading_dict(readings(faces).mean(axis=0)) if faces else {}


def refine_change(faces: list, t_s: float, min_side: int = REFINE_MIN_SIDE) -> float:
    """The change point ``t_s`` (s, from the index's frames) placed at the verifier's frame rate: the split of
    one person's ``faces`` (time-ordered ``FaceObservation``) that best separates their readings (one change,
    least squares: ``ruptures.Dynp``, the L2 cost), halfway between the faces either side; ``t_s`` itself when
    there are fewer than ``min_side`` faces on a side."""
    import ruptures

    if len(faces) < 2 * min_side:
        return t_s
    k = ruptures.Dynp(model="l2", min_size=min_side, jump=1).fit(readings(faces)).predict(n_bkps=1)[0]
    return round((faces[k - 1].t + faces[k].t) / 2, 3)


def change_evidence(index: VideoIndex, cand: Proposal, ask: ChangeAsk, stored: list[tuple[FrameObservation, Path]],
                    tool: str, step: float) -> tuple[list[Evidence], float, ChangeObservations]:
    """The candidate person's faces before and after its change point as the verifier read them (the point
    placed at the verifier's frame rate: ``refine_change``, or for a departure halfway after the leaver's last
    face): one face per side cited (the one showing that side's top label most), and at a departure the leaver's
    last face; the support (module doc) and the observations. No face on one side: no evidence, support 0."""
    where = {f.id: path for fr, path in stored for f in fr.faces}
    faces = sorted((f for fr, _ in stored for f in fr.faces if index.face_person(f) == cand.person), key=lambda f: f.t)
    if cand.left is None:
        t_s, last = refine_change(faces, cand.change_s), None
    else:  # a departure: halfway after the leaver's last face at this frame rate
        # the leaver's faces until the index frame where they were gone (half an index step after ``change_s``)
        gone_at = cand.change_s + 0.5 / index.config.sample_fps
        gone = [f for fr, _ in stored for f in fr.faces if index.face_person(f) == cand.left and f.t < gone_at]
        last = max(gone, key=lambda f: f.t, default=None)
        t_s = round(last.t + step / 2, 3) if last else cand.change_s
    sides = ([f for f in faces if f.t < t_s], [f for f in faces if f.t >= t_s])
    before, after = (_mean(side) for side in sides)
    obs = ChangeObservations(t_s=t_s, person=cand.person, before=before, after=after,
                             n_before=len(sides[0]), n_after=len(sides[1]), left=cand.left)
    if not (sides[0] and sides[1]):
        return [], 0.0, obs
    obs.magnitude = round(distance(before, after), 4)
    evidence = []
    for n, (side, mean, when) in enumerate(zip(sides, (before, after), ("before", "after"), strict=True)):
        label = max(mean, key=mean.__getitem__)
        f = max(side, key=lambda x, lab=label: x.expression[lab])
        evidence.append(Evidence(
            id=f"{cand.clip_id}.x{n}", modality="visual", tool=tool, start_s=f.t, end_s=round(f.t + step, 3),
            person=cand.person, detail=(f"{when} {t_s:.1f} s, person {cand.person}'s face shows {label} "
                                        f"(p={f.expression[label]:.2f}; mean over {len(side)} frames {mean[label]:.2f})"),
            ref=index.cache.ref(where[f.id], f.id)))
    if last is not None:
        evidence.append(Evidence(
            id=f"{cand.clip_id}.x2", modality="visual", tool=tool, start_s=last.t, end_s=round(last.t + step, 3),
            person=cand.left, detail=f"person {cand.left} is last seen at {last.t:.1f} s and leaves the picture; the "
                                     "shot goes on", ref=index.cache.ref(where[last.id], last.id)))
    fit = agreement(ask, before, after)
    return evidence, round(fit if cand.left is not None else obs.magnitude * fit, 4), obs


def judge_change(obs: ChangeObservations, target_p: float | None, span: list[float],
                 confidence: Callable[[float], float]) -> EmotionJudgement:
    """The offline judgement of a change candidate: the top label after the change (and ``before``, the top
    label before), the candidate's whole span, ``confidence`` of the after side's top probability
    (``agents.fusion.Fusion.confidence`` without a label's intercept: those were fitted on candidates' fused
    readings, not on one face's readings at a change point; ``evals/RESULTS.md`` section 163) and ``target_p``, the
    asked emotions' weighed probability after the change (``agents.emotion.target_probability`` of ``obs.after``;
    None when no emotion was asked), to 3 decimals."""
    after = max(obs.after, key=obs.after.__getitem__)
    return EmotionJudgement(emotion=after, before=max(obs.before, key=obs.before.__getitem__),
                            confidence=round(confidence(obs.after[after]), 3), start_s=span[0], end_s=span[1],
                            target_probability=None if target_p is None else round(target_p, 3))


def change_warnings(ask: ChangeAsk | None, moments: list, events: list = ()) -> list[str]:
    """The line an answer carries when its question asks about a change of feeling and none of its
    ``moments`` (``agents.schema.Moment``) names one: no person's timeline held a change point
    (``tools.signals.timeline.change_points``: ``MIN_SEGMENT`` sampled frames of the same face on each side, a shift of
    the mean reading that stands out of the readings' frame-to-frame noise and is at least ``MIN_CHANGE``), so the
    moments shown answer the question as one about a feeling. Where the index's ``expression_change`` events
    (``events``: ``tools.signals.events.expression_changes``, a flip of a face's smoothed top label) name flips, the
    line names them too, so it agrees with what ``affectseek inspect`` and the report show."""
    if ask is None or any(m.change for m in moments):
        return []
    if ask.departure:
        return [("no one was seen leaving the picture while another person stayed in it (a departure needs a face seen "
                 f"in {MIN_SEGMENT} sampled frames that vanishes while the shot goes on); the moments shown answer the "
                 "question as one about a feeling")]
    flips = [f"{e.detail} at {e.start_s:.1f}-{e.end_s:.1f} s" for e in events if e.type == "expression_change"]
    seen = (f"; the smoothed top label flips ({'; '.join(flips[:3])}{'; ...' if len(flips) > 3 else ''}), too "
            "little against that noise") if flips else ""
    return [(f"no change of feeling was found in any person's face timeline (a change needs {MIN_SEGMENT} sampled "
             f"frames of the same face on each side and a shift of the mean reading of at least {MIN_CHANGE} that "
             f"stands out of its frame-to-frame noise){seen}; the moments shown answer the question as one about a "
             "feeling")]
