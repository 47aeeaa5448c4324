"""What an index is built with: ``IndexConfig`` (the settings of an index build and its cache key) and
``INDEX_FORMAT``, the version of the stored layout that is part of that key.

The stored index itself (its records, ``save_index`` and ``load_index``) is ``memory.store``'s.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from memory.cache import config_key
from tools.perception.engine import PerceptionConfig
from tools.perception.expression import DEFAULT_EXPRESSION

INDEX_FORMAT = 19
"""Version of the stored layout and of what the build computes; part of the cache key."""


class IndexConfig(BaseModel):
    """What an index is built with; everything but ``device`` is part of the cache key.

    Defaults follow the VQAU setting of short overlapping clips: 4 s windows, 2 s stride, frames
    sampled at 1 fps.
    """

    clip_len_s: float = Field(4.0, gt=0)
    clip_stride_s: float = Field(2.0, gt=0)
    sample_fps: float = Field(1.0, gt=0)
    embedder: Literal["minilm", "openclip"] = "minilm"
    openclip_model: str = "ViT-B-32"
    openclip_checkpoint: str | None = None
    asr_backend: str = "faster-whisper"
    asr_model: str | None = None
    asr_batch_size: int = Field(0, ge=0, le=64)
    asr_task: Literal["transcribe", "translate"] = Field(
        "transcribe", description="transcribe: text in the spoken language; translate: Whisper's English "
                                  "translation (multilingual models)")
    language: str | None = None
    transcript_encoder: Literal["minilm", "use-multilingual", "auto"] = Field(
        "minilm", description="sentence encoder of the transcript segments and the questions searched against them "
                              "(tools.perception.text.load_transcript_encoder): minilm (English), use-multilingual, or auto: "
                              "use-multilingual when the transcript is not in English (tools.perception.text.transcript_encoder_for)")
    face_backend: str = "mediapipe"
    expression_backend: str = DEFAULT_EXPRESSION
    identity_backend: str | None = Field("dlib", description="face identity model that re-identifies people "
                                         "across shots (tools.perception.identity); None: tracks stay per shot")
    voice_backend: str | None = "voice8"
    voice_id_backend: str | None = Field("ge2e", description="voice identity model that diarizes speech "
                                         "(tools.perception.voices, tools.signals.diarization); None: no voice field")
    use_audio: bool = True
    index_gestures: bool = Field(True, description="hands and body pose in the index's frame-rate pass, so the "
                                 "whole-video event timeline the localizer searches has gestures; False: gaze only")
    caption_model: str | None = Field(None, description="litellm vision model that captions keyframes (tools.perception.captions)")
    caption_every_s: float = Field(10.0, gt=0, description="a keyframe at least every this many seconds of a shot")
    device: str = Field("cpu", description="cpu, cuda or cuda:N: where the torch and ONNX models run (CLIP, ASR, "
                        "text encoders, expression, voice identity); not part of the cache key")

    def perception(self) -> PerceptionConfig:
        """The perception engine's config (``tools.perception.engine``) this index config names, on its ``device``."""
        return PerceptionConfig(face_backend=self.face_backend, expression_backend=self.expression_backend,
                                identity_backend=self.identity_backend or "dlib", device=self.device)

    def clip_embedder(self):
        """The (cached) clip embedder this config names (``tools.perception.embedders``)."""
        from tools.perception.embedders import load_clip_embedder

        if self.embedder == "openclip":
            return load_clip_embedder("openclip", model=self.openclip_model, checkpoint=self.openclip_checkpoint,
                                      device=self.device)
        return load_clip_embedder("minilm", device=self.device)

    def key(self) -> str:
        """Cache key (12 hex) of everything that changes the index's content (the caption settings only
        when a caption model is set, the ASR task and the transcript encoder only when they are not the
        default, so indexes built before those options existed keep their key)."""
        unused = {"caption_model", "caption_every_s"} if self.caption_model is None else set()
        unused |= {"asr_task"} if self.asr_task == "transcribe" else set()
        unused |= {"transcript_encoder"} if self.transcript_encoder == "minilm" else set()
        return config_key({"format": INDEX_FORMAT, **self.model_dump(exclude={"device", *unused})})
