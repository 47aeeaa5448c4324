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
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from agents.state import RunSettings
from memory.index_config import IndexConfig, IndexSettings
from tools.core.runtime import check_device
from tools.core.schema import first_error

_CONFIG_FILE: contextvars.ContextVar[Path | None] = contextvars.ContextVar("affectseek_config_file", default=None)


class SettingsError(ValueError):
    """The config file is missing or unreadable, or a setting is invalid (one line, for the user)."""


class Settings(BaseSettings, RunSettings, IndexSettings):
    """Everything a run can be told (see the module doc for where each value comes from): the index settings
    (``memory.index_config.IndexSettings``) and the search and verification settings (``agents.state.RunSettings``),
    each declared there once, and the few of the command itself below. Each field is also a command-line flag
    (``graphs.flags``): ``--<name-with-dashes>`` or its ``json_schema_extra["flag"]``, with ``aliases``, its
    ``--help`` ``group`` and ``metavar``; a ``registry`` field offers its registry's names (validated against the
    registry here too)."""

    model_config = SettingsConfigDict(env_prefix="AFFECTSEEK_", extra="forbid", frozen=True)

    llm: str = Field("offline", description="'offline' (embedded deterministic reasoner, no key, no network) or a "
                     "litellm model id such as openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/llama3.1")
    cache_dir: str | None = Field(None, description="cache root (default $AFFECTSEEK_CACHE or ~/.cache/affectseek)")
    quiet: bool = Field(False, description="no progress bars")

    @field_validator("*", mode="before")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        """No setting holds a NUL character (a config file's "\\u0000"): no file name, model id or language takes one."""
        if isinstance(value, str) and "\x00" in value:
            raise ValueError(f"{value!r} holds a NUL character")
        return value

    @field_validator("cache_dir")
    @classmethod
    def _a_folder_to_write(cls, value: str | None) -> str | None:
        """The cache root is a folder this process may write, or can be made one (its nearest existing parent is)."""
        if value is None:
            return value
        path = Path(value).expanduser()
        existing = next((p for p in (path, *path.parents) if p.exists()), None)
        if existing is not None and not existing.is_dir():
            raise ValueError(f"{value}: {existing} is a file, not a folder")
        if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
            raise ValueError(f"{value}: {existing} cannot be written")
        return value

    @model_validator(mode="after")
    def _images_need_a_vision_llm(self) -> Settings:
        if self.llm_images and self.llm == "offline":
            raise ValueError("--llm-images needs a vision --llm (e.g. openai/gpt-4o-mini or ollama/llava); "
                             "the offline reasoner reads no images")
        return self

    def check_device(self) -> None:
        """Check that ``device`` can run the models these settings load (``tools.core.runtime.check_device``:
        torch always, onnxruntime when the expression backend runs an ONNX model, CTranslate2 when ``use_audio``);
        nothing is imported for ``cpu``.

        Raises:
            tools.core.runtime.DeviceError: CUDA was asked for and is not available (one line, for the user).
        """
        from tools.perception.expression import EXPRESSION_CLASSIFIERS

        check_device(self.device, onnx=EXPRESSION_CLASSIFIERS.runs_onnx(self.expression_backend),
                     ctranslate2=self.use_audio)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource) -> tuple[PydanticBaseSettingsSource, ...]:
        config = _CONFIG_FILE.get()
        file_source = (TomlConfigSettingsSource(settings_cls, toml_file=config),) if config is not None else ()
        return init_settings, env_settings, *file_source

    def index_config(self) -> IndexConfig:
        """How to index (``memory.index_config.IndexConfig``): these settings' index fields."""
        return IndexConfig.model_validate(self.model_dump(include=set(IndexSettings.model_fields)))

    def run_settings(self) -> RunSettings:
        """Search and verification knobs (``agents.state.RunSettings``): these settings' run fields."""
        return RunSettings.model_validate(self.model_dump(include=set(RunSettings.model_fields)))


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
