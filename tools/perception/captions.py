"""Scene captions of keyframes by a vision-language model through litellm (``--caption-model``).

Faces, voices and words say little about where a moment happens or what else is in the picture ("a firm
handshake on a coastal walkway"). As in VideoAgent and Deep Video Discovery, a vision-language model
captions sparse keyframes at index time, and each clip's descriptor carries the caption of its keyframe
so that retrieval can match scene words. Off by default (it calls a hosted or local model: OpenAI,
Anthropic, Gemini, Ollama; keys and server addresses come from litellm's environment variables such as
``OPENAI_API_KEY`` or ``OLLAMA_API_BASE``); nothing is sent anywhere unless a model is named.

Keyframes (``caption_times``): the middle of each shot (between the index's cuts), and one every
``every_s`` seconds inside longer shots. Each is sent downscaled to ``max_side`` pixels as one JPEG image
part; at most ``max_keyframes`` per video.
"""

from __future__ import annotations

import base64
import io
import itertools
import logging
import math

import numpy as np

from tools.core.registry import BackendUnavailableError

_log = logging.getLogger(__name__)
#: The instruction sent with each keyframe.
CAPTION_PROMPT = ("Describe this video frame in one sentence for search: the place, the people and what they "
                  "are doing, objects, light and mood. No preamble.")


class CaptionError(BackendUnavailableError):
    """The caption model could not be reached or answered nothing usable for any keyframe."""


def caption_times(duration_s: float, cuts: list[float], every_s: float = 10.0, max_keyframes: int = 720) -> list[float]:
    """Keyframe times (seconds): the middle of each shot between ``cuts`` and, in shots longer than
    ``every_s``, one per ``every_s`` so that keyframes are at most ``every_s`` apart (module doc); at most ``max_keyframes``, spread evenly when more.

    Raises:
        ValueError: ``every_s`` is not positive.
    """
    if every_s <= 0:
        raise ValueError("every_s must be positive")
    edges = [0.0, *sorted(c for c in cuts if 0.0 < c < duration_s), duration_s]
    times = []
    for a, b in itertools.pairwise(edges):
        n = max(1, math.ceil((b - a) / every_s))
        times += [round(a + (b - a) * (k + 0.5) / n, 3) for k in range(n)]
    if len(times) > max_keyframes:
        times = [times[int(i)] for i in np.linspace(0, len(times) - 1, max_keyframes)]
    return times


def completion_cost_usd(response) -> float:
    """litellm's price estimate (USD) of one completion response; 0.0 for a model litellm has no price for
    (a local server such as Ollama)."""
    import litellm

    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # noqa: BLE001 -- litellm raises for a model without a price
        _log.debug("no price for %s", getattr(response, "model", "?"), exc_info=True)
        return 0.0


def jpeg_data_url(frame: np.ndarray, max_side: int = 512, quality: int = 85) -> str:
    """``data:image/jpeg;base64,...`` of an RGB uint8 frame (H, W, 3), downscaled so its longer side is at
    most ``max_side`` pixels."""
    from PIL import Image

    img = Image.fromarray(frame)
    img.thumbnail((max_side, max_side))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=quality)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()


class KeyframeCaptioner:
    """Captions frames with ``model`` (a litellm model id with vision, e.g. ``openai/gpt-4o-mini``,
    ``ollama/llava``); ``litellm_kwargs`` go to ``litellm.completion`` (``api_base``, ``api_key``, ...).

    ``calls``, ``failures`` and ``cost_usd`` (litellm's price table; 0 where it has no price) count use;
    ``last_error`` is the last failure in one line.
    """

    def __init__(self, model: str, max_side: int = 512, max_tokens: int = 80, timeout_s: float = 60.0,
                 num_retries: int = 2, **litellm_kwargs) -> None:
        self.model, self.max_side, self.max_tokens = model, max_side, max_tokens
        self.timeout_s, self.num_retries, self.kwargs = timeout_s, num_retries, litellm_kwargs
        self.name = f"caption:{model}"
        self.calls = self.failures = 0
        self.cost_usd = 0.0
        self.last_error: str | None = None

    def caption(self, frame: np.ndarray) -> str | None:
        """One sentence about ``frame`` (RGB uint8, (H, W, 3)); None when the call fails or says nothing."""
        import litellm

        self.calls += 1
        messages = [{"role": "user", "content": [
            {"type": "text", "text": CAPTION_PROMPT},
            {"type": "image_url", "image_url": {"url": jpeg_data_url(frame, self.max_side)}}]}]
        try:
            response = litellm.completion(model=self.model, messages=messages, max_tokens=self.max_tokens,
                                          timeout=self.timeout_s, num_retries=self.num_retries, **self.kwargs)
            text = (response.choices[0].message.content or "").strip()
        except Exception as exc:  # noqa: BLE001 -- any provider failure: the keyframe is counted, the build goes on
            self.failures += 1
            self.last_error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
            _log.debug("caption of a keyframe failed", exc_info=True)
            return None
        self.cost_usd += completion_cost_usd(response)
        text = " ".join(text.split())
        return text[:300] or None


def scene_of(clip_start_s: float, clip_end_s: float, captions: list[tuple[float, str]], every_s: float) -> str | None:
    """The caption of the keyframe inside [clip_start_s, clip_end_s), else of the nearest keyframe within
    ``every_s`` / 2 of the clip; None when there is none."""
    mid = (clip_start_s + clip_end_s) / 2
    inside = [(abs(t - mid), c) for t, c in captions if clip_start_s <= t < clip_end_s]
    near = inside or [(abs(t - mid), c) for t, c in captions
                      if min(abs(t - clip_start_s), abs(t - clip_end_s)) <= every_s / 2]
    return min(near)[1] if near else None
