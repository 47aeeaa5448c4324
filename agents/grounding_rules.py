"""The offline rules of person grounding (``agents.grounding``): the people a phrase names, resolved from what
the index observed to person ids (``TrackSummary.person``), each with the rule that chose them and a
confidence in [0, 1]:

- **speaking** ("the speaker", "the performer"): the person with the most speaking time (utterances
  whose speaker is that person by lip activity or by a voice linked to them,
  ``memory.store.Utterance.speaker``); confidence = that
  person's share of all utterance time (unattributed speech counts against it);
- **group** ("the audience", "the crowd", "people", "everyone", "they"): the people who never speak and
  are seen in frames with at least ``GROUP_MIN_FACES`` faces; confidence = the mean share of their face
  observations made in such frames;
- **appearance** ("she", "the man", "the older woman", "a young man", "the kid"): the people whose faces
  the appearance heads (``tools.perception.appearance``: annotated gender and age group from the tracks' identity
  descriptors, trained on UTKFace) read as the phrase says with probability at least
  ``APPEARANCE_MIN_P`` (for "an older man": P(man) x P(40 or older)); every such person, since "she" in
  a question may be any of them; confidence = the mean of their probabilities;
- **only person** ("she", "he", "a woman", "a man", ...), when no face was read (no identity backend, or
  every face too small): one person who fills most of the screen time (at least
  ``ONLY_PERSON_MIN_SHARE`` of all face observations; e.g. a talking head); confidence = that share;
  otherwise it stays unresolved and the answer says so.

- **position** ("the one on the left", "the woman on the right", "the man in the middle";
  ``tools.signals.lexicon.person_phrases``): within each shot, in the sampled frames showing two or more faces
  (three for "the middle"), the person whose face is leftmost / rightmost / the middle one by its centre;
  per shot the person who holds that place in the largest share of the frames they share with others
  (then in the most frames), kept when that share is at least ``POSITION_MIN_SHARE``. The phrase means
  one person per such shot, since "on the left" is said of a picture. Faces under
  ``POSITION_MIN_SIZE_RATIO`` of the frame's largest face (a blurred face behind a close-up) take no
  place. A person noun with an appearance ("the woman on the right") drops a shot whose person at that
  place the appearance heads read otherwise. Confidence = the mean of those shares.
"""

from __future__ import annotations

from collections import Counter

from agents.schema import PersonGrounding
from memory.store import VideoIndex
from tools.core.schema import Appearance
from tools.signals.lexicon import POSITIONS

#: Faces on screen at once from which a frame shows a group (an audience, a crowd).
GROUP_MIN_FACES = 3
#: Share of all face observations one person must hold for "she"/"he" to mean that person offline.
ONLY_PERSON_MIN_SHARE = 0.6
#: Probability of what a phrase says of a person's appearance ("a woman", "an older man") for it to name them.
APPEARANCE_MIN_P = 0.5
#: Share of the frames a person shares with others in which they hold the named place, for "on the left" to mean them.
POSITION_MIN_SHARE = 0.5
#: Faces smaller than this share of the largest face in a frame (box height) take no place in it: a blurred
#: face in the background of a close-up is not "the one on the left" (on the sample's 1 s close-up the
#: background face is 0.33 of the pianist's; the audience's faces at 8-9 s are 0.77-0.95 of each other).
POSITION_MIN_SIZE_RATIO = 0.5

SPEAKING = ("the speaker", "the performer")
GROUP = ("the audience", "people", "everyone", "a group")
ONLY_PERSON = ("a woman", "a man", "a girl", "a boy")
#: Phrase -> (gender in ``tools.core.schema.GENDERS`` or None, age word of ``tools.core.schema.AGE_WORDS`` or None).
APPEARANCE_PHRASES: dict[str, tuple[str | None, str | None]] = {
    "a woman": ("woman", None), "a girl": ("woman", None), "a man": ("man", None), "a boy": ("man", None),
    "a child": (None, "child"), "an older woman": ("woman", "older"), "an older man": ("man", "older"),
    "an older person": (None, "older"), "a young woman": ("woman", "young"), "a young man": ("man", "young"),
    "a young person": (None, "young"), "a young girl": ("woman", "young"), "a young boy": ("man", "young"),
    # "the older girl" is older than other children, not 40 or over: the age word says nothing the age head reads
    "an older girl": ("woman", None), "an older boy": ("man", None),
}


def face_observations(index: VideoIndex) -> tuple[Counter, Counter]:
    """Face observations per person, and those made in frames with ``GROUP_MIN_FACES`` or more faces."""
    seen, in_group = Counter(), Counter()
    for fr in index.faces:
        for p in (index.person_of(f.track_id) for f in fr.faces if f.track_id is not None):
            seen[p] += 1
            if len(fr.faces) >= GROUP_MIN_FACES:
                in_group[p] += 1
    return seen, in_group


def speaking_time(index: VideoIndex) -> tuple[Counter, float]:
    """Seconds of utterances per known speaker, and the seconds of all utterances."""
    spoken: Counter = Counter()
    total = 0.0
    for u in index.utterances:
        total += u.end_s - u.start_s
        if u.speaker is not None:
            spoken[u.speaker] += u.end_s - u.start_s
    return spoken, total


def person_thumbnails(index: VideoIndex, persons: list[int]) -> list[str]:
    """The first stored face thumbnail (``TrackSummary.thumbnail``) of each of ``persons`` that has one, in order."""
    out = []
    for p in persons:
        thumb = next((t.thumbnail for t in index.tracks if index.person_of(t.track_id) == p and t.thumbnail), None)
        if thumb:
            out.append(thumb)
    return out


def person_appearances(index: VideoIndex) -> dict[int, Appearance]:
    """Each person's appearance reading, combined over their tracks (``Appearance.combine``); people with no
    read face are absent."""
    per: dict[int, list[Appearance]] = {}
    for t in index.tracks:
        if t.appearance is not None:
            per.setdefault(index.person_of(t.track_id), []).append(t.appearance)
    return {p: Appearance.combine(r) for p, r in sorted(per.items())}


def _phrase_probability(reading: Appearance, phrase: str) -> float:
    """Probability that a person with ``reading`` is what ``phrase`` of ``APPEARANCE_PHRASES`` says: P(gender)
    x P(age word), each factor 1 when the phrase leaves it open."""
    gender, age = APPEARANCE_PHRASES[phrase]
    return (reading.p_gender(gender) if gender else 1.0) * (reading.p_age(age) if age else 1.0)


def _described(gender: str | None, age: str | None) -> str:
    who = {"woman": "a woman", "man": "a man", None: "a person"}[gender]
    return {None: who, "older": f"{who} of 40 or older", "young": f"{who} under 40", "child": "a child or teenager"}[age]


def ground_appearance(phrase: str, index: VideoIndex) -> PersonGrounding | None:
    """The **appearance** rule (module doc) for a phrase of ``APPEARANCE_PHRASES``; None when no person's
    face was read (the caller falls back to the only-person rule)."""
    gender, age = APPEARANCE_PHRASES[phrase]
    readings = person_appearances(index)
    if not readings:
        return None
    score = {p: _phrase_probability(a, phrase) for p, a in readings.items()}
    chosen = [p for p, v in score.items() if v >= APPEARANCE_MIN_P]
    what = _described(gender, age)
    if not chosen:
        read = "; ".join(f"person {p} {readings[p].text}" for p in readings)
        return PersonGrounding(phrase=phrase, persons=[], rule="unresolved", confidence=0.0,
                               detail=f"nobody's face reads as {what}: {read}")
    others = [p for p in readings if p not in chosen]
    return PersonGrounding(phrase=phrase, persons=chosen, rule="appearance",
                           confidence=round(sum(score[p] for p in chosen) / len(chosen), 3),
                           detail=f"faces read as {what}: " + ", ".join(f"person {p} ({score[p]:.2f})" for p in chosen)
                                  + ("; not: " + ", ".join(f"person {p} ({score[p]:.2f})" for p in others) if others else ""),
                           thumbnails=person_thumbnails(index, chosen))


def _mismatched(role: str, index: VideoIndex) -> set[int]:
    """People whose appearance reading says they are not ``role`` ("a woman", ...; ``APPEARANCE_PHRASES``),
    i.e. give it probability below ``APPEARANCE_MIN_P``; people with no reading are never among them."""
    if role not in APPEARANCE_PHRASES:
        return set()
    return {p for p, a in person_appearances(index).items() if _phrase_probability(a, role) < APPEARANCE_MIN_P}


def ground_position(phrase: str, place: str, index: VideoIndex, role: str = "the person") -> PersonGrounding:
    """The **position** rule (module doc) for ``place`` "left", "right" or "middle"; ``role`` is the phrase's
    person noun ("a woman"): a shot whose person at the place reads otherwise (``_mismatched``) names nobody."""
    shot_of = {t.track_id: t.shot for t in index.tracks}
    held: dict[int, Counter] = {}  # shot -> person -> frames in which they hold the place
    shared: dict[int, Counter] = {}  # shot -> person -> frames they share with other faces
    span: dict[int, list[float]] = {}
    mismatched = _mismatched(role, index)
    for fr in index.faces:
        tracked = [f for f in fr.faces if f.track_id is not None]
        largest = max((f.box.y1 - f.box.y0 for f in tracked), default=0.0)
        faces = sorted((f for f in tracked if f.box.y1 - f.box.y0 >= POSITION_MIN_SIZE_RATIO * largest),
                       key=lambda f: f.box.x0 + f.box.x1)
        if len(faces) < (3 if place == "middle" else 2) or (place == "middle" and len(faces) % 2 == 0):
            continue
        shot = shot_of[faces[0].track_id]
        at = {"left": faces[0], "right": faces[-1], "middle": faces[len(faces) // 2]}[place]
        held.setdefault(shot, Counter())[index.person_of(at.track_id)] += 1
        for f in faces:
            shared.setdefault(shot, Counter())[index.person_of(f.track_id)] += 1
        lo_hi = span.setdefault(shot, [fr.t, fr.t])
        lo_hi[1] = fr.t
    chosen, shares, parts, otherwise = [], [], [], []
    for shot, votes in sorted(held.items()):
        who = max(votes, key=lambda p, v=votes, s=shared[shot]: (v[p] / s[p], v[p]))  # most consistently there
        n = votes[who]
        share = n / shared[shot][who]
        if who in mismatched:
            otherwise.append(who)
        elif share >= POSITION_MIN_SHARE and who not in chosen:
            chosen.append(who)
            shares.append(share)
            lo, hi = span[shot]
            when = f"{lo:.0f}-{hi:.0f} s" if round(hi) > round(lo) else f"{lo:.0f} s"
            parts.append(f"person {who} at {when} ({n} of {shared[shot][who]} frames with others)")
    what = {"left": "leftmost", "right": "rightmost", "middle": "middle"}[place]
    if not chosen:
        but = (f"; the {what} face reads otherwise than {role}: " + ", ".join(f"person {p}" for p in otherwise)
               if otherwise else "")
        return PersonGrounding(phrase=phrase, persons=[], rule="unresolved", confidence=0.0,
                               detail=f"no shot shows {role} who is mostly the {what} of several faces{but}")
    return PersonGrounding(phrase=phrase, persons=chosen, rule="position", confidence=round(sum(shares) / len(shares), 3),
                           detail=f"the {what} face where several share the screen: " + "; ".join(parts),
                           thumbnails=person_thumbnails(index, chosen))


def ground_phrase(phrase: str, index: VideoIndex) -> PersonGrounding | None:
    """The grounding of one intent people phrase (``tools.signals.lexicon.person_phrases``), or None for a phrase
    that names nobody in particular."""
    place = next((w for w, suffix in POSITIONS.items() if phrase.endswith(" " + suffix)), None)
    if place is not None:
        return ground_position(phrase, place, index, role=phrase.removesuffix(" " + POSITIONS[place]))
    if phrase not in (*SPEAKING, *GROUP, *APPEARANCE_PHRASES):
        return None
    if phrase in APPEARANCE_PHRASES:
        g = ground_appearance(phrase, index)
        if g is not None or phrase not in ONLY_PERSON:
            return g or PersonGrounding(phrase=phrase, persons=[], rule="unresolved", confidence=0.0,
                                        detail="no face was large enough to read its age")
    seen, in_group = face_observations(index)
    spoken, total_speech = speaking_time(index)
    if phrase in SPEAKING:
        if not spoken:
            return PersonGrounding(phrase=phrase, persons=[], rule="unresolved", confidence=0.0,
                                   detail="no utterance has a speaker (no face's lips moved with the speech or its voice)")
        who, secs = spoken.most_common(1)[0]
        conf = secs / total_speech if total_speech else 0.0
        return PersonGrounding(phrase=phrase, persons=[who], rule="speaking", confidence=round(conf, 3),
                               detail=f"person {who} speaks {secs:.1f} of {total_speech:.1f} s of speech",
                               thumbnails=person_thumbnails(index, [who]))
    if phrase in GROUP:
        group = sorted(p for p in in_group if p not in spoken)
        if not group:
            return PersonGrounding(phrase=phrase, persons=[], rule="unresolved", confidence=0.0,
                                   detail=f"no frame shows {GROUP_MIN_FACES} or more faces of people who do not speak")
        conf = sum(in_group[p] / seen[p] for p in group) / len(group)
        return PersonGrounding(phrase=phrase, persons=group, rule="group", confidence=round(conf, 3),
                               detail=f"people who never speak, seen with {GROUP_MIN_FACES}+ faces on screen",
                               thumbnails=person_thumbnails(index, group))
    total = sum(seen.values())
    if total:
        who, n = seen.most_common(1)[0]
        if n / total >= ONLY_PERSON_MIN_SHARE:
            return PersonGrounding(phrase=phrase, persons=[who], rule="only_person", confidence=round(n / total, 3),
                                   detail=f"person {who} holds {n} of {total} face observations",
                                   thumbnails=person_thumbnails(index, [who]))
    return PersonGrounding(phrase=phrase, persons=[], rule="unresolved", confidence=0.0,
                           detail="several people share the screen and no face was large enough to read "
                                  "(a vision LLM can: --llm MODEL --llm-images N)")
