"""Each person's usual face reading in an index, and a face read against it: what the search scores a face by
(salience, ``evals/RESULTS.md`` section 48) and what the emotion reasoner names it by (section 166).

``PersonAffect`` is a part of ``memory.store.VideoIndex``; the methods are the pure functions of
``tools.signals.timeline`` (``baseline_shifts``, ``person_baselines``, ``departure_reading``) over the index's faces
(``faces``: the index's frames, at its 1 fps), the person of each track (``person_by_track``) and the person of any
face (``face_person``), which ``VideoIndex`` provides. Computed on first use, not stored.
"""

from __future__ import annotations

import functools

import numpy as np

from tools.core.schema import FaceObservation
from tools.signals.timeline import baseline_shifts, departure_reading, person_baselines, reading_dict, readings


class PersonAffect:
    """Each person's usual face reading and a face against it, for a class with ``faces``, ``person_by_track`` and
    ``face_person`` (``memory.store.VideoIndex``)."""

    @functools.cached_property
    def baseline_shift(self) -> dict[int, dict[str, float]]:
        """Person id -> label -> the video's baseline minus the person's own, for people seen long enough for
        one (``tools.signals.timeline.baseline_shifts``)."""
        return baseline_shifts(self.faces, self.person_by_track)

    @functools.cached_property
    def person_baseline(self) -> dict[int, np.ndarray]:
        """Person id -> their usual reading, shape (8,) in ``AFFECTNET8`` order, for people seen long enough for one
        (``tools.signals.timeline.person_baselines``)."""
        return person_baselines(self.faces, self.person_by_track)

    def departure(self, face: FaceObservation, person: int | None) -> dict[str, float] | None:
        """``face``'s reading against the usual reading of ``person`` (its ``face_person``;
        ``tools.signals.timeline.departure_reading``), label -> probability rounded to 4 places; None when that person
        has none (``person_baseline``)."""
        base = self.person_baseline.get(person) if person is not None else None
        if base is None:
            return None
        return reading_dict(departure_reading(readings([face])[0], base))

    def salient_p(self, face: FaceObservation, labels: list[str]) -> float:
        """The summed probability of ``labels`` in ``face``'s reading, plus the shift of the face's person
        (``baseline_shift``: re-centred on the video's usual look where the person was seen long enough for a shift,
        ``tools.signals.timeline.MIN_SHIFT_FRAMES``), in [0, 1]."""
        shift = self.baseline_shift.get(self.face_person(face), {}) if self.baseline_shift else {}
        return min(1.0, max(0.0, sum(face.expression.get(k, 0.0) + shift.get(k, 0.0) for k in labels)))
