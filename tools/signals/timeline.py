"""Each person's affect over the whole video: the face's AffectNet-8 reading as a smoothed timeline, the
person's own baseline, how far each moment departs from it (salience), and where the reading changes.

Input is what an index stores: the faces read in each sampled frame (``FrameFaces``, at the index's 1 fps)
with their track, and the person of each track (``tools.signals.tracks.reidentify``). A person's tracks are never on
screen together, so a person has at most one face per frame. Everything here is a pure function of those
records.

- **Smoothing**: the mean of the person's readings within ``SMOOTH_S`` seconds of each frame (by time, so
  readings on either side of a stretch off screen are not joined).
- **Baseline**: the per-label median of the person's readings over the video, renormalised to sum to 1:
  how this person usually looks to the reader (person-specific normalisation: Baltrusaitis, Mahmoud and
  Robinson, 2015, "Cross-dataset learning and person-specific normalisation for automatic Action Unit
  detection", subtract the median of a person's features over the video). A person seen in fewer than
  ``MIN_OWN_BASELINE`` frames takes the video's baseline (the median over every face read), since a few
  frames do not say how someone usually looks.
- **Salience**: the total-variation distance (0..1) between the smoothed reading and the baseline; the
  departure of one label is the smoothed probability minus the baseline's (positive: more than usual). A
  face that always reads a little sad has a sad baseline, and no sad salience.
- **Departure reading**: a reading against the person's own baseline, tempered (``departure_reading``): each
  probability divided by the baseline's to the power ``BASELINE_EXPONENT``, renormalised. A person whose calm face
  reads half surprise (a talking mouth) is named by what departs from that, and a reading like the person's usual
  one keeps its top label. The emotion reasoner names a face so where the person has a usual reading
  (``person_baselines``, ``MIN_DEPARTURE_FRAMES``; ``evals/RESULTS.md`` sections 166 and 168).
- **Change points**: PELT (Killick, Fearnhead and Eckley, 2012, "Optimal detection of changepoints with a
  linear computational cost", JASA 107(500)) with the L2 cost on the raw (n, 8) readings (``ruptures``'
  ``KernelCPD`` with the linear kernel, whose cost is the L2 cost and whose penalised search is PELT in C: the same
  change points as its pure-Python ``Pelt(model="l2")``, which took 44 s on an hour's faces, in under a second)
  and a BIC-type penalty (Schwarz, 1978) for a change in the mean of 8 dimensions:
  ``PENALTY_SCALE * (8 + 1) * log(n) * sigma^2``, where sigma^2 is the noise variance of the noisiest label,
  estimated from first differences (median absolute deviation / 0.6745, squared, halved: the difference of
  two noisy readings has twice their variance). Change points whose two sides' mean readings are less than
  ``MIN_CHANGE`` apart (total variation) are dropped, weakest first, joining their segments; a change's time
  is halfway between the last frame before and the first frame after.
"""

from __future__ import annotations

import importlib.metadata
import math
from collections import defaultdict
from collections.abc import Mapping
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from tools.core.schema import AFFECTNET8, Emotion, FrameFaces

#: Half-width (s) of the smoothing window: a reading is averaged with the person's readings within this
#: many seconds (3 frames at the index's 1 fps).
SMOOTH_S = 1.0
#: Fewest frames of a person for an own baseline (10 s of face at 1 fps); fewer take the video's.
MIN_OWN_BASELINE = 10
#: Fewest tracks (separate appearances) of a person for a usual reading of their own (``person_baselines``: the
#: baseline shift and the departure reading): one stretch of one emotion says nothing about how the person usually
#: looks.
MIN_SHIFT_TRACKS = 2
#: Fewest frames of a person for the shift that ranks their faces against their usual look (``baseline_shifts``; the
#: departure takes fewer, ``MIN_DEPARTURE_FRAMES``): 20 s of face at the index's 1 fps
#: (a count of frames, as ``MIN_OWN_BASELINE``: at ``--fps 2`` it is 10 s). A few short
#: appearances, each an emotional episode, say what the person showed, not how they usually look: on recorded
#: development video (evals/RESULTS.md section 80) actors seen in 2-5 acted clips, 10-15 s in all, took their happy
#: clips as their usual look and the happy moment sank; the recurring people of the long transitions bench, whose usual
#: look the shift is for (section 48), are seen for 25-61 s each (re-identification splits a subject seen for minutes
#: into several people). Chosen between the two on development data.
MIN_SHIFT_FRAMES = 20
#: Fewest frames of a person for the usual reading a face is named against (``person_baselines``,
#: ``departure_reading``; over ``MIN_SHIFT_TRACKS`` tracks): 12 s of face at 1 fps. The departure is tempered
#: (``BASELINE_EXPONENT``), so a face that reads as the person usually does keeps that reading's top label, and a
#: person seen in a few short emotional appearances is not re-read away from them as the shift would rank them away
#: (``MIN_SHIFT_FRAMES``). Of 20, 12 and 8, 12 and 8 named the most top moments right on recorded development videos
#: of one person in four or five short clips (Joint 54 -> 69 of 182 at 12, 18 gained and 3 lost); the longer and the
#: several-people benches lost none (evals/RESULTS.md section 168).
MIN_DEPARTURE_FRAMES = 12
#: The exponent of the baseline in a departure reading (``departure_reading``): 0 is the reading as read, 1 the plain
#: ratio to the person's usual reading (log reading minus log baseline), under which a face that reads as the person
#: usually looks has every label level. Of 0.25, 0.5, 0.75 and 1, 0.5 and 0.75 named the most recorded development clips
#: (89 as read -> 97 and 101 of 204, the baseline the median over the person's frames) and labelled the most top moments
#: right on recorded development video of one person a video (Joint 16 -> 20 and 22 of 54, none lost); at 0.5 one top
#: moment there gained its place and one lost it (at 0.75 two and three), and the confidence's calibration suffered
#: less (``evals/RESULTS.md`` section 166).
BASELINE_EXPONENT = 0.5
#: Added to a probability and to the baseline's before a departure reading divides them (a label read at 0 throughout).
DEPARTURE_EPS = 1e-4
#: Fewest frames on each side of a change point (PELT's minimum segment length).
MIN_SEGMENT = 3
#: Multiplier of the BIC-type penalty (1.0: the plain BIC of a mean change in Gaussian noise).
PENALTY_SCALE = 1.0
#: Noise variance below which sigma^2 is not trusted (constant readings would give a zero penalty).
MIN_NOISE_VAR = 1e-4
#: Smallest total-variation distance between the mean readings before and after a kept change.
MIN_CHANGE = 0.2
#: Version of the method above; raised when it changes in a way the constants do not show (``timeline_method``).
TIMELINE_FORMAT = 1


def timeline_method() -> dict[str, float | int | str]:
    """What ``affect_timelines`` depends on besides its input: ``TIMELINE_FORMAT``, the constants above and the
    installed ``ruptures`` version (read from its metadata, without importing it). The index pass stores the timelines
    with it (``memory.store.save_index``); a stored result made under another method is computed again."""
    return {"format": TIMELINE_FORMAT, "smooth_s": SMOOTH_S, "min_own_baseline": MIN_OWN_BASELINE,
            "min_segment": MIN_SEGMENT, "penalty_scale": PENALTY_SCALE, "min_noise_var": MIN_NOISE_VAR,
            "min_change": MIN_CHANGE, "ruptures": importlib.metadata.version("ruptures")}


class ChangePoint(BaseModel):
    """Where one person's reading changes: the time, the top label and span on either side, the size."""

    t_s: float = Field(description="seconds; halfway between the last frame before and the first after")
    before: Emotion = Field(description="top AffectNet-8 label of the mean reading before")
    after: Emotion = Field(description="top AffectNet-8 label of the mean reading after")
    before_s: tuple[float, float] = Field(description="(first, last) frame time of the segment before, seconds")
    after_s: tuple[float, float] = Field(description="(first, last) frame time of the segment after, seconds")
    magnitude: float = Field(ge=0.0, le=1.0, description="total-variation distance of the two mean readings")
    before_p: dict[str, float] = Field(description="mean AffectNet-8 reading before: label -> probability")
    after_p: dict[str, float] = Field(description="mean AffectNet-8 reading after: label -> probability")


class PersonTimeline(BaseModel):
    """One person's reading over the video in one modality (``AFFECTNET8`` order in every row): the face
    (``affect_timelines``), or the voice or the words (``tools.signals.speech_timeline``)."""

    person: int
    modality: Literal["visual", "vocal", "verbal"] = Field(
        "visual", description="visual: the face at each sampled frame; vocal: the voice, verbal: the words, at each "
                              "stretch of the person's speech (its middle)")
    times_s: list[float] = Field(description="times (s) where the person was read, increasing")
    smoothed: list[list[float]] = Field(description="(n, 8) smoothed AffectNet-8 probabilities")
    baseline: dict[str, float] = Field(description="the person's usual reading: label -> probability")
    baseline_from: str = Field(description="'own' (the person's median) or 'video' (too few frames)")
    salience: list[float] = Field(description="(n,) total-variation distance of each smoothed row from the baseline")
    changes: list[ChangePoint] = Field(default_factory=list)

    def departure(self, emotion: str) -> np.ndarray:
        """(n,) smoothed probability of ``emotion`` minus the baseline's (positive: more than usual)."""
        return np.asarray(self.smoothed)[:, AFFECTNET8.index(emotion)] - self.baseline[emotion]


def readings(faces) -> np.ndarray:
    """(n, 8) AffectNet-8 probabilities of ``faces`` (``FaceObservation``s), in ``AFFECTNET8`` order."""
    return np.asarray([[f.expression.get(k, 0.0) for k in AFFECTNET8] for f in faces], dtype=np.float64)


def reading_dict(row: np.ndarray) -> dict[str, float]:
    """An (8,) reading as label -> probability, rounded to 4 places."""
    return {k: round(float(v), 4) for k, v in zip(AFFECTNET8, row)}


def median_distribution(x: np.ndarray) -> np.ndarray:
    """The per-label median of readings ``x`` (n, 8), renormalised to sum to 1 (uniform when all are 0)."""
    m = np.median(x, axis=0)
    return m / m.sum() if m.sum() > 0 else np.full(len(AFFECTNET8), 1 / len(AFFECTNET8))


def smooth(times: np.ndarray, x: np.ndarray, half_width_s: float = SMOOTH_S) -> np.ndarray:
    """(n, d) mean of the rows of ``x`` whose time lies within ``half_width_s`` seconds of each row's time."""
    near = np.abs(times[:, None] - times[None, :]) <= half_width_s + 1e-9
    return near @ x / near.sum(axis=1, keepdims=True)


def change_points(times: np.ndarray, x: np.ndarray, min_segment: int = MIN_SEGMENT,
                  penalty_scale: float = PENALTY_SCALE, min_change: float = MIN_CHANGE) -> list[ChangePoint]:
    """Change points of readings ``x`` (n, 8) at ``times`` (n,) seconds (see the module doc)."""
    import ruptures

    n, d = x.shape
    if n < 2 * min_segment:
        return []
    diffs = np.diff(x, axis=0)
    sigma2 = max(float(np.max((np.median(np.abs(diffs - np.median(diffs, axis=0)), axis=0) / 0.6745) ** 2)) / 2,
                 MIN_NOISE_VAR)
    penalty = penalty_scale * (d + 1) * math.log(n) * sigma2
    bounds = [0, *ruptures.KernelCPD(kernel="linear", min_size=min_segment).fit(x).predict(pen=penalty)]

    def size(i: int) -> float:  # total variation between the means of the segments either side of bounds[i]
        return 0.5 * float(np.abs(x[bounds[i - 1]:bounds[i]].mean(0) - x[bounds[i]:bounds[i + 1]].mean(0)).sum())

    while len(bounds) > 2 and min(size(i) for i in range(1, len(bounds) - 1)) < min_change:
        bounds.pop(min(range(1, len(bounds) - 1), key=size))  # the weakest goes; its two segments join
    changes = []
    for a, b, c in zip(bounds, bounds[1:], bounds[2:]):
        before, after = x[a:b].mean(axis=0), x[b:c].mean(axis=0)
        if (size := 0.5 * float(np.abs(before - after).sum())) >= min_change:
            changes.append(ChangePoint(
                t_s=round(float(times[b - 1] + times[b]) / 2, 3), before=AFFECTNET8[int(before.argmax())],
                after=AFFECTNET8[int(after.argmax())], before_s=(float(times[a]), float(times[b - 1])),
                after_s=(float(times[b]), float(times[c - 1])), magnitude=round(min(size, 1.0), 3),
                before_p=reading_dict(before), after_p=reading_dict(after)))
    return changes


def _faces_by_person(affect: list[FrameFaces], person_of: Mapping[int, int]) -> dict[int, list]:
    seen: dict[int, list] = defaultdict(list)
    for frame in affect:
        for face in frame.faces:
            if face.track_id is not None and face.track_id in person_of:
                seen[person_of[face.track_id]].append(face)
    return seen


def _video_baseline(seen: dict[int, list]) -> np.ndarray:
    """The (8,) median reading over every face of ``seen`` (``_faces_by_person``): how the video usually looks."""
    return median_distribution(np.concatenate([readings(faces) for faces in seen.values()]))


def person_baselines(affect: list[FrameFaces], person_of: Mapping[int, int]) -> dict[int, np.ndarray]:
    """Per person whose face was read in ``MIN_DEPARTURE_FRAMES`` frames or more (one face a frame) over
    ``MIN_SHIFT_TRACKS`` tracks or more: their usual reading, the (8,) per-label median over their faces
    (``median_distribution``), which a face is named against (``departure_reading``). Anyone else has none: a person
    seen once, in one stretch, has no usual look apart from that stretch (on recorded dev video a person's one happy
    shot was the moment itself).

    Args:
        affect: the index's frames with their faces (``VideoIndex.faces``).
        person_of: track id -> person id; faces of other tracks are left out.
    """
    return _usual_readings(_faces_by_person(affect, person_of), MIN_DEPARTURE_FRAMES)


def _usual_readings(seen: dict[int, list], min_frames: int) -> dict[int, np.ndarray]:
    """The usual reading, the (8,) per-label median (``median_distribution``), of each person of the faces grouped by
    person (``_faces_by_person``) seen in ``min_frames`` frames or more over ``MIN_SHIFT_TRACKS`` tracks or more."""
    return {person: median_distribution(readings(faces)) for person, faces in sorted(seen.items())
            if len(faces) >= min_frames and len({f.track_id for f in faces}) >= MIN_SHIFT_TRACKS}


def baseline_shifts(affect: list[FrameFaces], person_of: Mapping[int, int]) -> dict[int, dict[str, float]]:
    """Per person whose face was read in ``MIN_SHIFT_FRAMES`` frames or more over ``MIN_SHIFT_TRACKS`` tracks or more,
    their usual reading as ``person_baselines`` takes it: label -> the video's baseline minus the person's.
    Added to one of the person's readings it re-centres the person on the video's usual look, so a reading is scored
    by how far it departs from this person's own (salience, in the reading's scale); anyone else has no shift.

    Args:
        affect: the index's frames with their faces (``VideoIndex.faces``).
        person_of: track id -> person id; faces of other tracks are left out.
    """
    seen = _faces_by_person(affect, person_of)
    if not seen:
        return {}
    video = _video_baseline(seen)
    return {person: reading_dict(video - own) for person, own in _usual_readings(seen, MIN_SHIFT_FRAMES).items()}


def departure_reading(x: np.ndarray, baseline: np.ndarray, exponent: float = BASELINE_EXPONENT) -> np.ndarray:
    """Readings ``x`` ((8,) or (n, 8), ``AFFECTNET8`` order) against a person's usual reading ``baseline`` (8,):
    ``(x + DEPARTURE_EPS) / (baseline + DEPARTURE_EPS) ** exponent``, each row renormalised to sum to 1; the same
    shape as ``x``. A person-specific normalisation (Baltrusaitis, Mahmoud and Robinson, 2015, remove a person's
    median) in the log domain, tempered: log x - exponent * log baseline. A reading equal to the baseline comes out as
    the baseline to the power 1 - exponent (its top label kept); a label the person usually shows a little is named
    only when read more than usual."""
    y = (np.asarray(x, dtype=np.float64) + DEPARTURE_EPS) / (np.asarray(baseline, dtype=np.float64) + DEPARTURE_EPS
                                                             ) ** exponent
    return y / y.sum(axis=-1, keepdims=True)


def affect_timelines(affect: list[FrameFaces], person_of: Mapping[int, int]) -> list[PersonTimeline]:
    """One ``PersonTimeline`` per person whose face was read, in order of person id.

    Args:
        affect: the index's frames with their faces (``VideoIndex.faces``).
        person_of: track id -> person id; a face without a track, or whose track is not a key, is left out.
    """
    seen = _faces_by_person(affect, person_of)
    if not seen:
        return []
    video_baseline = _video_baseline(seen)
    timelines = []
    for person in sorted(seen):
        faces = sorted(seen[person], key=lambda f: f.t)
        timelines.append(person_timeline(person, np.asarray([f.t for f in faces]), readings(faces), video_baseline))
    return timelines


def person_timeline(person: int, times: np.ndarray, x: np.ndarray, video_baseline: np.ndarray,
                    modality: Literal["visual", "vocal", "verbal"] = "visual") -> PersonTimeline:
    """The ``PersonTimeline`` of one person's readings ``x`` (n, 8) at increasing ``times`` (n,) seconds: smoothed,
    against the person's own baseline (or ``video_baseline`` (8,) with fewer than ``MIN_OWN_BASELINE`` readings),
    with salience and change points (see the module doc)."""
    own = len(x) >= MIN_OWN_BASELINE
    base = median_distribution(x) if own else video_baseline
    s = smooth(times, x)
    return PersonTimeline(
        person=person, modality=modality, times_s=[round(float(t), 3) for t in times], smoothed=np.round(s, 4).tolist(),
        baseline=reading_dict(base), baseline_from="own" if own else "video",
        salience=np.round(0.5 * np.abs(s - base).sum(axis=1), 4).tolist(), changes=change_points(times, x))
