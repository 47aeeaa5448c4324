"""Clip embedders behind one interface: text-side descriptors (offline default) or CLIP images.

- ``minilm`` (default): each clip's descriptor text (its transcript plus what the index-time affect
  pass saw) embedded with all-MiniLM-L6-v2. No registry package ships CLIP weights, so this is the
  default that runs offline.
- ``openclip``: open_clip image embeddings (Radford et al., 2021, CLIP; Cherti et al., 2023, OpenCLIP),
  the mean of the clip's sampled-frame embeddings; queries go through the text tower. Used whenever
  a checkpoint is configured (a local file, or an open_clip pretrained tag a user can download).
"""

from __future__ import annotations

import os
from typing import Protocol

import numpy as np

from tools.core.registry import Registry
from tools.perception.text import load_text_encoder


class ClipEmbedder(Protocol):
    """Embeds clips and queries into one space.

    - ``embed_frames(frames)``: list of RGB uint8 (H, W, 3) -> (N, D), or None when the embedder
      does not look at pixels.
    - ``embed_descriptors(texts)``: clip descriptor strings -> (N, D), or None when unused.
    - ``embed_queries(texts)``: query strings -> (N, D).
    All outputs are float32 and L2-normalised.
    """

    name: str
    uses_frames: bool

    def embed_frames(self, frames: list[np.ndarray]) -> np.ndarray | None: ...

    def embed_descriptors(self, texts: list[str]) -> np.ndarray | None: ...

    def embed_queries(self, texts: list[str]) -> np.ndarray: ...


class DescriptorEmbedder:
    """Text-side clip descriptors embedded with a sentence encoder (default all-MiniLM-L6-v2)."""

    uses_frames = False

    def __init__(self, model: str | None = None, device: str = "cpu") -> None:
        self._enc = load_text_encoder(model=model, device=device)
        self.name = f"descriptor:{self._enc.name}"

    def embed_frames(self, frames: list[np.ndarray]) -> None:
        return None

    def embed_descriptors(self, texts: list[str]) -> np.ndarray:
        return self._enc.encode(texts)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._enc.encode(texts)


class OpenClipEmbedder:
    """open_clip image/text embedder.

    Args:
        model: open_clip architecture name (e.g. ``ViT-B-32``, ``ViT-L-14``), or the path of an
            open_clip model-config JSON for a custom architecture (registered under its file stem).
        checkpoint: a local checkpoint file, or an open_clip pretrained tag (``laion2b_s34b_b79k``,
            needs internet on first use).
        device: ``cpu`` or ``cuda``.

    Raises:
        ImportError: open_clip is not installed.
        RuntimeError: the checkpoint does not match the architecture.
    """

    uses_frames = True

    def __init__(self, model: str = "ViT-B-32", checkpoint: str | None = None, device: str = "cpu") -> None:
        import open_clip
        import torch

        if not checkpoint:
            raise ValueError("the CLIP embedder needs a checkpoint (--openclip-checkpoint PATH or pretrained tag)")
        self._torch = torch
        self.device = device
        if model.endswith(".json") and os.path.isfile(model):
            open_clip.add_model_config(model)
            model = os.path.splitext(os.path.basename(model))[0]
        self._model, _, self._preprocess = open_clip.create_model_and_transforms(
            model, pretrained=checkpoint, device=device
        )
        self._model.eval()
        self._tokenizer = open_clip.get_tokenizer(model)
        tag = os.path.basename(checkpoint) if os.path.exists(checkpoint) else checkpoint
        self.name = f"open_clip:{model}:{tag}"

    def embed_frames(self, frames: list[np.ndarray]) -> np.ndarray:
        from PIL import Image

        if not frames:
            return np.zeros((0, self._model.visual.output_dim), np.float32)
        batch = self._torch.stack([self._preprocess(Image.fromarray(f)) for f in frames]).to(self.device)
        with self._torch.no_grad():
            feats = self._model.encode_image(batch, normalize=True)
        return feats.float().cpu().numpy()

    def embed_descriptors(self, texts: list[str]) -> None:
        return None

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        with self._torch.no_grad():
            feats = self._model.encode_text(self._tokenizer(texts).to(self.device), normalize=True)
        return feats.float().cpu().numpy()


CLIP_EMBEDDERS: Registry[ClipEmbedder] = Registry("clip embedder")


@CLIP_EMBEDDERS.register("minilm")
def _load_minilm(device: str = "cpu", **_: object) -> ClipEmbedder:
    return DescriptorEmbedder(device=device)


@CLIP_EMBEDDERS.register("openclip")
def _load_clip(model: str = "ViT-B-32", checkpoint: str | None = None, device: str = "cpu") -> ClipEmbedder:
    return OpenClipEmbedder(model=model, checkpoint=checkpoint, device=device)


def load_clip_embedder(name: str = "minilm", **opts: object) -> ClipEmbedder:
    """Return the cached clip embedder ``name`` (``minilm`` or ``openclip``, the CLIP image encoder)."""
    return CLIP_EMBEDDERS.load(name, **opts)
