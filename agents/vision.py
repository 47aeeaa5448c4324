"""What a vision LLM is shown: a candidate moment's keyframe and face crops, or one face per person, as
JPEG data URLs.

With ``--llm-images N`` (``RunSettings.llm_images``) and a hosted or local vision model (``--llm
openai/gpt-4o-mini``, ``anthropic/claude-...``, ``gemini/...``, ``ollama/llava``), the emotion reasoner
sends the candidate's keyframe and the faces its verifier cited beside the tool observations
(``agents.llm.LiteLLMClient.structured(images=...)``). The count is bounded by N (at most
``MAX_IMAGES``) and each image's longer side by ``KEYFRAME_SIDE`` / ``FACE_SIDE`` pixels, so a question
costs at most N small images per judged candidate; the answer's ``llm_usage`` counts calls, images and
litellm's price estimate. With the same setting, people a question names by appearance ("the woman",
"the one in red") that the offline rules cannot resolve are grounded by showing the model one face
thumbnail per person (``thumbnail_url``; ``agents.grounding``). The offline reasoner is never shown images.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agents.llm import OfflineReasoner
from agents.schema import VerifiedCandidate
from indexing.visual import THUMB_MARGIN
from memory.store import VideoIndex
from tools.core.frames import iter_frames
from tools.core.schema import Box
from tools.perception.captions import jpeg_data_url
from tools.perception.crops import crop_face

if TYPE_CHECKING:
    from agents.state import RunContext

#: Upper bound of ``--llm-images``.
MAX_IMAGES = 8
#: Longer side (px) of the keyframe and of each face crop sent.
KEYFRAME_SIDE, FACE_SIDE = 512, 224


def _frame_at(index: VideoIndex, t: float) -> np.ndarray | None:
    return next((f for _, f in iter_frames(index.info.path, fps=25.0, start_s=t, end_s=t + 0.04)), None)


def reads_images(ctx: RunContext) -> bool:
    """Whether a run shows its LLM images: ``--llm-images`` above 0 and an LLM other than the offline reasoner, which
    reads none (``agents.llm.OfflineReasoner``), so no frame is decoded for it."""
    return ctx.settings.llm_images > 0 and not isinstance(ctx.llm, OfflineReasoner)


def thumbnail_url(index: VideoIndex, thumbnail: str) -> str | None:
    """JPEG data URL (longer side <= ``FACE_SIDE``) of a track thumbnail (path relative to the index
    directory); None when the file is missing or unreadable."""
    from PIL import Image

    try:
        with Image.open(index.dir / thumbnail) as img:
            return jpeg_data_url(np.asarray(img.convert("RGB")), FACE_SIDE)
    except OSError:
        return None


def candidate_images(index: VideoIndex, cand: VerifiedCandidate, n: int) -> list[str]:
    """Up to ``n`` (at most ``MAX_IMAGES``) JPEG data URLs: the keyframe at the middle of ``cand``'s span
    (longer side <= ``KEYFRAME_SIDE``), then crops of the faces its visual evidence cites, one per person,
    most confident expression first (longer side <= ``FACE_SIDE``). [] when ``n`` is 0."""
    n = min(n, MAX_IMAGES)
    if n <= 0:
        return []
    images = []
    key = _frame_at(index, (cand.start_s + cand.end_s) / 2)
    if key is not None:
        images.append(jpeg_data_url(key, KEYFRAME_SIDE))
    faces, seen = [], set()
    for ev in cand.evidence:
        if ev.modality != "visual" or not ev.ref or ev.person in seen:
            continue
        try:
            rec = index.cache.resolve(ev.ref)
        except KeyError:
            continue
        if "box" in rec and "expression" in rec:
            seen.add(ev.person)
            faces.append(rec)
    faces.sort(key=lambda r: -max(r["expression"].values()))
    for rec in faces[:n - len(images)]:
        frame = _frame_at(index, rec["t"])
        if frame is not None:
            crop = crop_face(frame, Box.model_validate(rec["box"]), THUMB_MARGIN)  # as the index's thumbnails
            images.append(jpeg_data_url(np.ascontiguousarray(crop), FACE_SIDE))
    return images[:n]
