"""From judged candidates to ranked moments: spans on shot boundaries, at least a second long, merged, ranked.

``draft_moments`` is the emotion reasoner's second half, a pure function of the judged candidates so a fit
can replay it (``studies.fit_fusion``):

- A span judged for an emotion question (or one asking which feeling someone shows) that overlaps an utterance
  grows to cover it, inside its shot (``over_the_utterance``): a feeling shown while someone speaks runs through
  what they say, so the moment is the union of the expression's span and the utterance, cut to the shot around it;
  the utterance is the one that overlaps the span most, spoken by a person the moment's visual evidence names or by
  an unknown speaker.
- A span edge within ``SNAP_S`` of one of the index's shot cuts (``tools.signals.shots``: the first frame of the new
  shot, found at the video's frame rate) moves onto it: a shot change bounds a moment. A moment at a change of
  feeling still holds its change point (an edge moved past it comes back to it).
- A span shorter than ``MIN_MOMENT_S`` grows about its middle to that length, inside its own shot when the
  shot is long enough, inside the video always: nobody marks a tenth of a second as a moment.
- Judged spans of the same emotion that overlap or meet are merged into one moment (``merged``: union of the spans,
  the higher confidence, the better-scored change; a merged span that now joins another merges with it too), except
  spans that meet at a shot cut (``joins``: two shots are two moments; the index's clips lie inside shots); a span
  judged twice with different emotions (two clips snapped to the same cuts, tIoU >= ``SAME_MOMENT_TIOU``) at a change
  or of two people is one moment with its better-ranked label, and so are two spans a question about behaviour took
  from the same gesture or look (``MomentDraft.anchor``: two overlapping clips of one shot that both saw the
  pointing, each span cut to its own clip). A moment of another emotion that overlaps a more strongly read one (by
  the judged confidence) over at least ``READ_TWICE_SHARE`` of the shorter, its faces not of other people
  (``read_twice``: a long shot's overlapping clips, each grown over the same utterance, read happiness over 0-4.6 s
  and neutral over 0-7.8 s), keeps only its part outside it when that is a moment (neutral over 4.6-7.8 s), or is
  left out (``one_reading_per_time``; a span judged twice so is one moment with its more confident label): an answer
  does not name two feelings for one person at one time. Moments at a change of feeling and those a gesture or look
  sets are kept as they are.
- Moments judged to show a target emotion of the intent rank before the others; within each group, those read at
  the verifier's rate before those read on the index's frames only (``VerifiedCandidate.coarse``: a 1 fps reading
  is not one an answer should lead with), then by support x the judged probability of the asked emotions, best first
  (one after the first that the question does not name by a word counting half: ``agents.emotion.target_weights``).
  A question that names no feeling ranks by support alone: what it asks for (a gesture, a look, words, a sound) is
  what the support measures, and the label's confidence says nothing of it ("when does he point at the crowd?" led
  with a thumbs-up read neutral 0.16 over the pointing read happiness 0.09); a change point of such a question, or a
  judge that gave no probability of the asked emotions, ranks by support x confidence. The label says what the moment
  shows; the ranking says how strongly it shows what was asked.
- A moment read as a feeling the question denies ("when is nobody happy?": ``agents.denied.denied_feelings``) ranks
  after every other: it shows what the question asks to be absent.
- A question for the first or the last time ("when does she smile for the first time?"; ``Intent.order``) puts the
  asked emotions' moments scored at least ``ORDER_FLOOR`` of the best of them in that order of time ahead of the rest
  (``ranked``); a question about what someone feels next puts the changes earliest first.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable

from agents.change_schema import MomentChange
from agents.schema import EmotionJudgement, Evidence, MomentDraft, VerifiedCandidate, new_items
from tools.core.schema import temporal_iou

#: A span edge this close to a shot cut (seconds) is moved onto the shot's start (a shot change bounds a moment).
SNAP_S = 0.6
#: The shortest moment (seconds) an answer gives: about the shortest span annotators mark in moment-retrieval
#: benchmarks, whose moments are whole seconds or more (QVHighlights' 2 s clips, Charades-STA's ~8 s average).
MIN_MOMENT_S = 1.0
#: Two judged spans at least this close (tIoU) are one moment: beyond the strictest threshold the benchmarks
#: score (R1@0.7), any evaluation would count them as the same span.
SAME_MOMENT_TIOU = 0.9
#: A moment of one emotion that overlaps a more strongly read moment of another over at least this share of the
#: shorter of the two is the same time read twice (two overlapping clips of one long shot, each grown over the same
#: utterance: one span inside the other): the stronger reading keeps the time. Two clips that overlap by half, each
#: read on its own frames, stay two moments. On 200 development questions asked on the shared media
#: (evals/RESULTS.md section 205) the different-label pairs overlap over 1.0 of the shorter (nested) or at most 0.50:
#: any share above 0.5 up to 1.0 gives the same answers there.
READ_TWICE_SHARE = 0.75
#: With an order of time asked (``Intent.order``), only the asked emotions' moments scored at least this share of the
#: best of them go by time; chosen on the first- and last-time questions of the recorded development benches
#: (``studies.moment_order``; ``evals/RESULTS.md`` section 179).
ORDER_FLOOR = 0.5


def snap_to_cuts(start_s: float, end_s: float, cuts: list[float], lo: float, hi: float) -> tuple[float, float]:
    """Move each edge of [start_s, end_s) onto the nearest shot cut in [lo, hi] (``cuts``: the index's, in seconds)
    when that cut is at most ``SNAP_S`` away; kept as it is when the result would be empty."""
    def near(t: float) -> float:
        best = min(((abs(c - t), c) for c in cuts if lo <= c <= hi), default=None)
        return best[1] if best is not None and best[0] <= SNAP_S else t

    s, e = near(start_s), near(end_s)
    return (s, e) if e > s else (start_s, end_s)


def at_least_a_moment(start_s: float, end_s: float, shot: tuple[float, float], duration_s: float
                      ) -> tuple[float, float]:
    """[start_s, end_s) grown about its middle to ``MIN_MOMENT_S`` when shorter, inside ``shot`` (its shot's
    start and end, seconds) when that shot is at least that long, and inside [0, duration_s] always (a video
    shorter than ``MIN_MOMENT_S`` gives the whole video). A span of the length or longer is returned as it is."""
    if end_s - start_s >= MIN_MOMENT_S:
        return start_s, end_s
    lo, hi = shot if shot[1] - shot[0] >= MIN_MOMENT_S else (0.0, duration_s)
    lo, hi = max(lo, 0.0), min(hi, duration_s)
    if hi - lo <= MIN_MOMENT_S:
        return round(lo, 3), round(hi, 3)
    s = round(min(max((start_s + end_s - MIN_MOMENT_S) / 2, lo), hi - MIN_MOMENT_S), 3)
    return s, round(s + MIN_MOMENT_S, 3)


def over_the_utterance(start_s: float, end_s: float, utterances: list[tuple[float, float, int | None]],
                       persons: set[int], shot: tuple[float, float]) -> tuple[float, float]:
    """[start_s, end_s) grown to cover the utterance (start, end seconds, speaker person or None) that overlaps it
    most, when that utterance's speaker is unknown or one of ``persons`` (the people the moment's visual evidence
    names: faces, gestures, gaze; any speaker when none is known), the union then cut to ``shot`` (its shot's start
    and end: a shot change bounds a moment, so a judged span that crossed a cut loses what lay beyond it); as it
    is without such an utterance.
    A moment spans the expression's onset to offset or the utterance, whichever the evidence is."""
    def overlap(u: tuple[float, float, int | None]) -> float:
        return min(end_s, u[1]) - max(start_s, u[0])

    said = [u for u in utterances if overlap(u) > 0 and (u[2] is None or not persons or u[2] in persons)]
    if not said:
        return start_s, end_s
    u = max(said, key=overlap)
    return max(min(start_s, u[0]), shot[0]), min(max(end_s, u[1]), shot[1])


def shot_around(t: float, cuts: list[float], duration_s: float) -> tuple[float, float]:
    """The (start, end) seconds of the shot holding time ``t`` between the sorted shot ``cuts``; the video's start
    and ``duration_s`` bound the first and last shot."""
    i = bisect.bisect_right(cuts, t)
    return (cuts[i - 1] if i else 0.0), (cuts[i] if i < len(cuts) else duration_s)


def joins(a: tuple[float, float], b: tuple[float, float], cuts: list[float]) -> bool:
    """Whether spans ``a`` and ``b`` (seconds) are one moment if they read the same emotion: they overlap, or one ends
    where the other starts at a time that is not one of the shot ``cuts`` (to the millisecond the spans are kept to)."""
    if b[0] < a[1] and a[0] < b[1]:
        return True
    meet = a[1] if abs(a[1] - b[0]) < 5e-4 else b[1] if abs(b[1] - a[0]) < 5e-4 else None
    return meet is not None and all(abs(meet - c) >= 5e-4 for c in cuts)


def merged(a: MomentDraft, b: MomentDraft) -> MomentDraft:
    """One moment of two of the same emotion that join: the union of their spans, the higher confidence and score,
    a's evidence then b's that a lacks (``agents.schema.new_items``: two overlapping clips cite the frames they share
    once), coarse only when both are, and the change of the higher-scoring one (a's on a tie)."""
    return a.model_copy(update={
        "start_s": min(a.start_s, b.start_s), "end_s": max(a.end_s, b.end_s),
        "confidence": max(a.confidence, b.confidence), "score": max(a.score, b.score), "coarse": a.coarse and b.coarse,
        "evidence": a.evidence + new_items(a.evidence, b.evidence),
        "change": b.change if b.score > a.score and b.change is not None else a.change or b.change,
        "anchor": a.anchor or b.anchor})


def anchor_of(cand: VerifiedCandidate, targets: list[str]) -> str | None:
    """The stored record (``Evidence.ref``) of the gesture or look that sets the span of ``cand`` for a question about
    behaviour (``targets`` empty; ``Observations.about_behaviour``), else None: ``MomentDraft.anchor``."""
    if not cand.observations.about_behaviour(targets):
        return None
    return next((e.ref for e in cand.evidence if e.id == cand.observations.behaviour.evidence_id), None)


def draft_moments(verified: list[VerifiedCandidate], targets: list[str], cuts: list[float], top_k: int,
                  abstain_below: float, judge_fn: Callable[[VerifiedCandidate], EmotionJudgement],
                  duration_s: float = float("inf"), utterances: list[tuple[float, float, int | None]] = (),
                  first_change: bool = False, feeling: bool = False, order: str | None = None,
                  window: tuple[float, float] | None = None, denied: tuple[str, ...] = ()
                  ) -> tuple[list[MomentDraft], bool]:
    """Judge the accepted candidates (the ``top_k`` best-supported when none was accepted: ``weak``) with
    ``judge_fn``, grow the spans of an emotion question (or, ``feeling``, of one asking which feeling someone shows:
    ``Intent.asks_feeling``) over the utterances they overlap (``over_the_utterance``; ``utterances``: the index's,
    as (start, end, speaker)), put spans on shot boundaries (``snap_to_cuts``: the index's shot ``cuts`` in seconds,
    sorted), give each at least ``MIN_MOMENT_S`` inside ``duration_s``, merge and rank (module doc).
    ``first_change`` (a question about what someone feels next): the drafts go in order of their change of feeling,
    earliest first, before the cut to ``top_k``, so the first change is kept however it ranks. ``order`` ("first" or
    "last": ``Intent.order``, "when does she smile for the first time?"): the drafts of the asked emotions go earliest
    (or latest) first, ahead of the rest (``evals/RESULTS.md`` section 179). ``window`` (seconds: the part of the video
    the question names, ``tools.signals.time_words``) bounds each span that overlaps it; ``denied``: the feelings the
    question denies, whose moments rank last (``ranked``). Returns (at most ``top_k``
    drafts, best first, or earliest change first, or in the order asked; weak)."""
    chosen = [c for c in verified if c.accepted]
    weak = not chosen
    if weak:  # nothing passed: the best-supported candidates (not those nothing supports), said to be weak
        chosen = sorted((c for c in verified if c.support > 0), key=lambda c: -c.support)[:top_k]
    chosen = [c for c in chosen if c.support >= abstain_below]
    drafts: list[MomentDraft] = []
    for cand in sorted(chosen, key=lambda c: c.start_s):
        j = judge_fn(cand)
        span = (j.start_s, j.end_s)
        if (targets or feeling) and utterances:
            span = over_the_utterance(*span, utterances, seen_people(cand.evidence),
                                      shot_around(sum(span) / 2, cuts, duration_s))
        span = snap_to_cuts(*span, cuts, cand.start_s - SNAP_S, cand.end_s + SNAP_S)
        change = None if j.before is None or cand.change_s is None else MomentChange(
            t_s=cand.observations.change.t_s or cand.change_s, person=cand.person, before=j.before, after=j.emotion,
            magnitude=cand.observations.change.magnitude or 0.0, left=cand.observations.change.left)
        if change is not None:  # a moment holds the change point it names, whatever cut or utterance moved an edge
            span = (min(span[0], change.t_s), max(span[1], change.t_s))
        if window is not None and span[0] < window[1] and window[0] < span[1]:  # the part the question names bounds it
            span = (max(span[0], window[0]), min(span[1], window[1]))
        span = (round(span[0], 3), round(span[1], 3))
        if span[1] - span[0] < MIN_MOMENT_S:
            span = at_least_a_moment(*span, shot_around(sum(span) / 2, cuts, duration_s), duration_s)
        asked = (j.target_probability if targets and j.target_probability is not None
                 else 1.0 if not targets and cand.change_s is None else j.confidence)  # module doc: how it ranks
        new = MomentDraft(start_s=span[0], end_s=span[1], emotion=j.emotion, confidence=j.confidence,
                          score=cand.support * asked, evidence=list(cand.evidence), change=change, coarse=cand.coarse,
                          anchor=anchor_of(cand, targets))
        group: list[int] = []  # earlier drafts of its emotion it overlaps or continues, and those they then join
        lo, hi = new.start_s, new.end_s
        while more := [i for i, d in enumerate(drafts) if i not in group and d.emotion == new.emotion
                       and joins((d.start_s, d.end_s), (lo, hi), cuts)]:
            group += more
            lo, hi = min(lo, *(drafts[i].start_s for i in more)), max(hi, *(drafts[i].end_s for i in more))
        if group:  # one moment, in the place of the earliest drafted
            group.sort()
            new = functools.reduce(merged, [*(drafts[i] for i in group[1:]), new], drafts[group[0]])
            drafts = [new if i == group[0] else d for i, d in enumerate(drafts) if i not in group[1:]]
        else:
            drafts.append(new)
    kept = ranked(drafts, targets, first_change, order, denied)
    return kept[:top_k], weak and bool(kept)


def seen_people(evidence: list[Evidence]) -> set[int]:
    """The people ``evidence``'s visual items name (faces, gestures, looks)."""
    return {e.person for e in evidence if e.modality == "visual" and e.person is not None}


def read_twice(d: MomentDraft, k: MomentDraft) -> bool:
    """Whether ``d`` reads again, as another emotion, the time of ``k``: neither holds a change of feeling nor a
    gesture or look it was taken from (``MomentDraft.anchor``), their labels differ, their faces are not of different
    people (two people's feelings at one time are two moments), and they overlap over at least ``READ_TWICE_SHARE`` of
    the shorter of the two spans."""
    if d.emotion == k.emotion or d.change is not None or k.change is not None or d.anchor or k.anchor:
        return False
    people = seen_people(d.evidence), seen_people(k.evidence)
    if all(people) and people[0].isdisjoint(people[1]):
        return False
    overlap = min(d.end_s, k.end_s) - max(d.start_s, k.start_s)
    return overlap > 0 and overlap >= READ_TWICE_SHARE * min(d.end_s - d.start_s, k.end_s - k.start_s)


def outside(d: MomentDraft, k: MomentDraft) -> MomentDraft | None:
    """``d`` cut to the longest of its parts before and after ``k`` (seconds) that lasts ``MIN_MOMENT_S`` or more and
    holds evidence, with the evidence that overlaps it (its score and confidence as read over the whole span); None
    when neither part does."""
    parts = []
    for lo, hi in ((d.start_s, min(d.end_s, k.start_s)), (max(d.start_s, k.end_s), d.end_s)):
        evidence = [e for e in d.evidence if e.start_s < hi and lo < e.end_s]
        if round(hi - lo, 3) >= MIN_MOMENT_S and evidence:
            parts.append((hi - lo, lo, hi, evidence))
    if not parts:
        return None
    _, lo, hi, evidence = max(parts, key=lambda p: p[0])
    return d.model_copy(update={"start_s": lo, "end_s": hi, "evidence": evidence})


def one_reading_per_time(drafts: list[MomentDraft]) -> list[MomentDraft]:
    """``drafts`` with each time read once: in order of the reading's strength (read at the verifier's rate before
    coarse, then by the judged confidence of its label, whatever the question asks), a draft that reads again the time
    of a stronger one (``read_twice``) keeps only its part outside it (``outside``: "how does she feel?" on a talking
    head read happiness over 0-4.6 s and neutral over 0-7.8 s: neutral over 4.6-7.8 s), cut again while it reads the
    time of another (each cut shortens it), or is left out; readings as confident go in the order given (the
    question's ranking). Returned in the order given."""
    placed: list[tuple[int, MomentDraft]] = []
    for i, d in sorted(enumerate(drafts), key=lambda item: (item[1].coarse, -item[1].confidence)):
        while d is not None and (stronger := next((k for _, k in placed if read_twice(d, k)), None)) is not None:
            d = outside(d, stronger)
        if d is not None:
            placed.append((i, d))
    return [d for _, d in sorted(placed, key=lambda item: item[0])]


def ranked(drafts: list[MomentDraft], targets: list[str], first_change: bool = False, order: str | None = None,
           denied: tuple[str, ...] = ()) -> list[MomentDraft]:
    """``drafts`` ranked (``draft_moments``' doc): the asked emotions' first, fine before coarse, then by score; one
    reading per moment (an anchor drafted twice, or a span judged twice, ``SAME_MOMENT_TIOU``, keeps its better-ranked
    label, unless the two are one time read twice, ``read_twice``) and per time (``one_reading_per_time``: the more
    confident reading keeps it, whatever the question asks); those read as a ``denied`` feeling (AffectNet-8 names)
    after every other; then by change point for ``first_change`` (whatever their label), or by time for ``order``
    ("first": earliest start first; "last": latest end first; the asked emotions' moments still ahead)."""
    kept: list[MomentDraft] = []
    for d in sorted(drafts, key=lambda d: (targets and d.emotion not in targets, d.coarse, -d.score)):
        if all(read_twice(d, k) or temporal_iou((d.start_s, d.end_s), (k.start_s, k.end_s)) < SAME_MOMENT_TIOU
               and (d.anchor is None or d.anchor != k.anchor) for k in kept):
            kept.append(d)
    kept = one_reading_per_time(kept)
    kept.sort(key=lambda d: (d.emotion in denied, targets and d.emotion not in targets, d.coarse, -d.score))
    if first_change:
        kept.sort(key=lambda d: d.change.t_s if d.change is not None else float("inf"))
    elif order is not None:
        asked = [d.score for d in kept if (not targets or d.emotion in targets) and d.emotion not in denied]
        floor = ORDER_FLOOR * max(asked, default=0.0)

        def place(d: MomentDraft) -> tuple:  # the asked emotions' moments over the floor by time, then the rest
            timed = (not targets or d.emotion in targets) and d.emotion not in denied and d.score >= floor
            return (not timed, d.emotion in denied, targets and d.emotion not in targets, d.coarse,
                    (d.start_s if order == "first" else -d.end_s) if timed else -d.score)

        kept.sort(key=place)
    return kept
