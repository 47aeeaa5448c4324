"""One settings model for every command: command-line flags, ``AFFECTSEEK_*`` variables, a config file.

Precedence, highest first: flags given on the command line; environment variables named
``AFFECTSEEK_<FIELD>`` (``AFFECTSEEK_TOP_K=3``, ``AFFECTSEEK_LLM=openai/gpt-4o-mini``); a TOML file
named by ``--config FILE`` or ``$AFFECTSEEK_CONFIG`` with the same field names (``top_k = 3``); the
defaults below. The cache root keeps its own variable, ``$AFFECTSEEK_CACHE`` (``tools.registry``).
"""

from __future__ import annotations

import contextvars
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from agents.state import RunSettings
from agents.taxonomy import resolve_labels
from memory.index_config import IndexConfig
from tools.expression import DEFAULT_EXPRESSION
from tools.runtime import DEVICE_PATTERN, check_device
from tools.schema import first_error

_CONFIG_FILE: contextvars.ContextVar[Path | None] = contextvars.ContextVar("affectseek_config_file", default=None)


class SettingsError(ValueError):
    """The config file is missing or unreadable, or a setting is invalid (one line, for the user)."""


class Settings(BaseSettings):
    """Everything a run can be told (see the module doc for where each value comes from)."""

    model_config = SettingsConfigDict(env_prefix="AFFECTSEEK_", extra="forbid", frozen=True)

    llm: str = Field("offline", description="'offline' (embedded reasoner) or a litellm model id")
    llm_images: int = Field(0, ge=0, le=8, description="images (keyframe, face crops) shown to a vision --llm per "
                            "judged moment")
    top_k: int = Field(5, ge=1, le=100, description="moments to return at most")
    cache_dir: str | None = Field(None, description="cache root (default $AFFECTSEEK_CACHE or ~/.cache/affectseek)")
    quiet: bool = Field(False, description="no progress bars")
    # indexing
    clip_len: float = Field(4.0, gt=0, le=600, description="clip window (s)")
    clip_stride: float = Field(2.0, gt=0, le=600, description="clip stride (s)")
    fps: float = Field(1.0, gt=0, le=30, description="frames per second sampled at indexing")
    openclip_checkpoint: str | None = Field(None, description="CLIP (open_clip) checkpoint file or pretrained tag")
    openclip_model: str = Field("ViT-B-32", description="CLIP (open_clip) architecture for openclip_checkpoint")
    asr_backend: Literal["faster-whisper", "whisperx"] = "faster-whisper"
    asr_model: str | None = Field(None, description="Whisper model dir or id")
    asr_batch_size: int = Field(0, ge=0, le=64, description="0: sequential decoding; N: batched (faster)")
    asr_task: Literal["transcribe", "translate"] = Field(
        "transcribe", description="transcribe (the spoken language) or translate (English text; multilingual model)")
    language: str | None = Field(None, description="force the speech language (e.g. en)")
    transcript_encoder: Literal["auto", "minilm", "use-multilingual"] = Field(
        "auto", description="sentence encoder of what was said; auto: use-multilingual when a multilingual "
                            "asr_model transcribes speech other than English, else minilm")
    no_audio: bool = Field(False, description="answer from the picture alone")
    device: str = Field("cpu", description="cpu, cuda or cuda:N: where the torch and ONNX models run (the "
                        "mediapipe and dlib models stay on the CPU)")
    expression_backend: str = Field(DEFAULT_EXPRESSION, description="facial expression model (tools.expression registry)")
    no_voice_emotion: bool = False
    no_reid: bool = Field(False, description="keep person tracks per shot (no face re-identification)")
    no_diarization: bool = Field(False, description="no voice diarization (utterances get no voice)")
    no_index_gestures: bool = Field(False, description="no hands/pose at index time (gestures only on candidates)")
    caption_model: str | None = Field(None, description="litellm vision model that captions keyframes at index time")
    caption_every_s: float = Field(10.0, gt=0, le=3600, description="a captioned keyframe at least every N s of a shot")
    # verification
    verify_fps: float = Field(4.0, gt=0, le=30, description="frame rate of the verifier on candidates")
    min_support: float = Field(0.3, ge=0, le=1)
    max_requery: int = Field(2, ge=0, le=10)
    abstain_below: float = Field(0.0, ge=0, le=1)
    labels: str = Field("AffectNet-8", description="the answer's label set: AffectNet-8, VQAU-13, Ekman-6, MER-6 "
                        "or a taxonomy JSON file (agents.taxonomy)")

    @field_validator("labels")
    @classmethod
    def _known_labels(cls, v: str) -> str:
        return resolve_labels(v)  # a TaxonomyError (ValueError) becomes a one-line SettingsError

    @field_validator("expression_backend")
    @classmethod
    def _known_expression_backend(cls, v: str) -> str:
        from tools.expression import EXPRESSION_CLASSIFIERS

        return EXPRESSION_CLASSIFIERS.check(v)  # UnknownBackendError (a ValueError) becomes a SettingsError

    @field_validator("device")
    @classmethod
    def _known_device(cls, v: str) -> str:
        if not DEVICE_PATTERN.fullmatch(v):
            raise ValueError(f"{v!r} is not a device: use cpu, cuda or cuda:N")
        return v

    def check_device(self) -> None:
        """Check that ``device`` can run the models these settings load (``tools.runtime.check_device``:
        torch always, onnxruntime when the expression backend runs an ONNX model, CTranslate2 unless ``no_audio``);
        nothing is imported for ``cpu``.

        Raises:
            tools.runtime.DeviceError: CUDA was asked for and is not available (one line, for the user).
        """
        from tools.expression import EXPRESSION_CLASSIFIERS

        check_device(self.device, onnx=EXPRESSION_CLASSIFIERS.runs_onnx(self.expression_backend),
                     ctranslate2=not self.no_audio)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource) -> tuple[PydanticBaseSettingsSource, ...]:
        config = _CONFIG_FILE.get()
        file_source = (TomlConfigSettingsSource(settings_cls, toml_file=config),) if config is not None else ()
        return init_settings, env_settings, *file_source

    def index_config(self) -> IndexConfig:
        """How to index (``memory.index_config.IndexConfig``)."""
        return IndexConfig(
            clip_len_s=self.clip_len, clip_stride_s=self.clip_stride, sample_fps=self.fps,
            embedder="openclip" if self.openclip_checkpoint else "minilm", openclip_model=self.openclip_model,
            openclip_checkpoint=self.openclip_checkpoint, asr_backend=self.asr_backend, asr_model=self.asr_model,
            asr_batch_size=self.asr_batch_size, asr_task=self.asr_task,
            language=self.language, transcript_encoder=self.resolved_transcript_encoder(),
            use_audio=not self.no_audio, device=self.device,
            expression_backend=self.expression_backend, voice_backend=None if self.no_voice_emotion else "voice8",
            identity_backend=None if self.no_reid else "dlib",
            voice_id_backend=None if self.no_diarization else "ge2e", index_gestures=not self.no_index_gestures, caption_model=self.caption_model, caption_every_s=self.caption_every_s)

    def resolved_transcript_encoder(self) -> str:
        """The index's ``transcript_encoder``: ``auto`` (decided by the transcript's language,
        ``tools.text.transcript_encoder_for``) when a multilingual Whisper (an ``asr_model`` whose name does
        not end in ``.en``) writes the spoken language (task transcribe, language not forced to English),
        else ``minilm``; an explicit choice as it is."""
        if self.transcript_encoder != "auto":
            return self.transcript_encoder
        multilingual = self.asr_model is not None and not self.asr_model.rstrip("/\\").endswith(".en")
        spoken = self.asr_task == "transcribe" and self.language not in ("en", "english")
        return "auto" if multilingual and spoken and not self.no_audio else "minilm"

    def run_settings(self) -> RunSettings:
        """Search and verification knobs (``agents.state.RunSettings``)."""
        return RunSettings(top_k=self.top_k, verify_fps=self.verify_fps, min_support=self.min_support,
                           max_requery=self.max_requery, abstain_below=self.abstain_below, labels=self.labels,
                           llm_images=self.llm_images)


def settings_from_args(args, config_file: str | os.PathLike | None = None) -> Settings:
    """``load_settings`` of the settings a command line gave: the parsed namespace's entries that name a
    ``Settings`` field (flags left out are absent from it, so the environment and the file can set them).

    Raises:
        SettingsError: as ``load_settings``.
    """
    return load_settings({k: v for k, v in vars(args).items() if k in Settings.model_fields}, config_file)


def load_settings(flags: dict[str, Any], config_file: str | os.PathLike | None = None) -> Settings:
    """The settings of one run: ``flags`` (only those given on the command line), then the
    environment, then ``config_file`` (default ``$AFFECTSEEK_CONFIG``), then the defaults.

    Raises:
        SettingsError: the config file is missing or not valid TOML, or a value is invalid.
    """
    path = config_file or os.environ.get("AFFECTSEEK_CONFIG") or None
    if path is not None and not Path(path).is_file():
        raise SettingsError(f"config file {path}: no such file")
    token = _CONFIG_FILE.set(Path(path) if path is not None else None)
    try:
        return Settings(**flags)
    except ValidationError as exc:
        where, msg = first_error(exc, "settings")
        raise SettingsError(f"{where}: {msg.removeprefix('Value error, ')}") from exc
    except ValueError as exc:  # TOML syntax errors (tomllib.TOMLDecodeError is a ValueError)
        raise SettingsError(f"config file {path}: {str(exc).splitlines()[0]}") from exc
    finally:
        _CONFIG_FILE.reset(token)
