"""Face crops every face model here reads: the box of a face (normalized image coordinates) cut from an RGB
frame with a margin, in colour (``crop_face``) or as the grey square the expression models read (``gray_crop``),
the box's place inside such a crop (``box_in_crop``) and a kept JPEG crop decoded (``jpeg_rgb``); ``CropReader``, the base of the expression readers that
read such crops. Needs only numpy and OpenCV (the schema is imported where a box is built), so the face network
and its trainer import it where pydantic is not installed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tools.core.schema import Box

#: Side of the grey square ``gray_crop`` cuts by default, in pixels.
CROP_SIDE = 64


def crop_bounds(shape: tuple[int, ...], box: Box, margin: float = 0.1) -> tuple[int, int, int, int]:
    """Pixel bounds (x0, y0, x1, y1) of ``crop_face``'s crop in an image of ``shape`` (H, W, ...)."""
    h, w = shape[:2]
    cx, cy = (box.x0 + box.x1) / 2 * w, (box.y0 + box.y1) / 2 * h
    side = max((box.x1 - box.x0) * w, (box.y1 - box.y0) * h) * (1 + 2 * margin)
    x0, y0 = int(max(0, cx - side / 2)), int(max(0, cy - side / 2))
    x1, y1 = int(min(w, cx + side / 2)), int(min(h, cy + side / 2))
    return x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)


def jpeg_rgb(data: bytes) -> np.ndarray:
    """The RGB uint8 image (H, W, 3) in JPEG bytes (a face crop the index kept, ``indexing.visual.face_jpeg``).

    Raises:
        ValueError: the bytes are not a decodable image.
    """
    import cv2

    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if bgr is None:
        raise ValueError("a face crop is not a decodable image")
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def crop_face(frame: np.ndarray, box: Box, margin: float = 0.1) -> np.ndarray:
    """Cut a square crop around ``box`` enlarged by ``margin`` (fraction of the box side) per side.

    Returns an array (h, w, 3); the square is clipped at the image border.
    """
    x0, y0, x1, y1 = crop_bounds(frame.shape, box, margin)
    return frame[y0:y1, x0:x1]


def box_in_crop(shape: tuple[int, ...], box: Box, margin: float = 0.1) -> Box:
    """``box`` (normalized to the image of ``shape``) in normalized coordinates of ``crop_face``'s crop."""
    from tools.core.schema import Box

    h, w = shape[:2]
    x0, y0, x1, y1 = crop_bounds(shape, box, margin)
    cw, ch = x1 - x0, y1 - y0

    def clip(v: float) -> float:
        return min(1.0, max(0.0, v))

    return Box(x0=clip((box.x0 * w - x0) / cw), y0=clip((box.y0 * h - y0) / ch),
               x1=clip((box.x1 * w - x0) / cw), y1=clip((box.y1 * h - y0) / ch))


def gray_crop(frame: np.ndarray, box: Box, size: int = CROP_SIDE, margin: float = 0.1) -> np.ndarray:
    """The crop every expression model here reads: ``crop_face(frame, box, margin)`` in grayscale,
    resized to ``size`` x ``size`` (uint8, shape (size, size)). Training (``studies/train_face.py``) and
    inference share it, so the model sees faces framed as it was trained."""
    import cv2

    gray = cv2.cvtColor(crop_face(frame, box, margin), cv2.COLOR_RGB2GRAY)
    return cv2.resize(gray, (size, size), interpolation=cv2.INTER_AREA)


class CropReader:
    """An expression reader of the pipeline's grey face crops: ``classify(frame, boxes)`` cuts each box (normalized
    image coordinates) of an RGB ``frame`` (H, W, 3) with ``gray_crop`` and returns the subclass's
    ``classify_crops`` of the uint8 crops (N, 64, 64): probabilities (N, 8) over AffectNet-8, (0, 8) for no box."""

    def classify_crops(self, crops: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def classify(self, frame: np.ndarray, boxes: list[Box]) -> np.ndarray:
        crops = (np.stack([gray_crop(frame, b) for b in boxes]) if boxes
                 else np.zeros((0, CROP_SIDE, CROP_SIDE), np.uint8))
        return self.classify_crops(crops)
