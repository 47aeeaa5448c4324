"""The border-crop trial's squares (``studies.border_crops``): a face at the frame's border keeps its shape."""

from __future__ import annotations

import numpy as np

from tools.core.schema import Box


def _frame() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, (120, 200, 3), dtype=np.uint8)


def test_a_face_inside_the_frame_is_cut_alike_by_every_crop():
    from studies.border_crops import CROPS

    frame, box = _frame(), Box(x0=0.4, y0=0.3, x1=0.6, y1=0.7)
    crops = [cut(frame, box) for cut in CROPS.values()]
    assert all(np.array_equal(crops[0], c) for c in crops[1:])


def test_the_padded_and_shifted_squares_of_a_face_at_the_border_stay_square():
    from studies.border_crops import padded_square, shifted_square, square_bounds

    frame, box = _frame(), Box(x0=0.0, y0=0.3, x1=0.15, y1=0.7)  # 48 px tall at the left border
    x0, y0, x1, y1 = square_bounds(frame.shape, box)
    assert x0 < 0 and x1 - x0 == y1 - y0
    padded = padded_square(frame, box)
    assert padded.shape == (y1 - y0, x1 - x0, 3)
    assert np.array_equal(padded[:, -x0:], frame[y0:y1, 0:x1])  # the visible part, where it was
    assert np.array_equal(padded[:, 0], padded[:, -x0])  # the outside repeats the border column
    shifted = shifted_square(frame, box)
    assert shifted.shape == padded.shape
    assert np.array_equal(shifted, frame[y0:y1, 0:x1 - x0])  # moved right, inside the frame
