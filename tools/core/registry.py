"""A tiny registry of named backends, one per tool.

Each tool module keeps a ``Registry`` of loader functions. A loader builds the heavy model; the
registry calls it at most once per (name, options) and caches the result, so models load lazily on
first use and are shared by every caller in the process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


def cache_root() -> Path:
    """The affectseek cache: ``$AFFECTSEEK_CACHE`` or ``~/.cache/affectseek``."""
    return Path(os.environ.get("AFFECTSEEK_CACHE") or Path.home() / ".cache" / "affectseek")


def model_cache_dir() -> Path:
    """Where backends keep files derived from shipped weights (e.g. ONNX exports):
    ``$AFFECTSEEK_MODEL_CACHE`` (one folder several caches can share), else ``cache_root()/models``."""
    return Path(os.environ.get("AFFECTSEEK_MODEL_CACHE") or cache_root() / "models")


class UnknownBackendError(ValueError):
    """Raised when a backend name is not registered for a tool."""


class BackendUnavailableError(RuntimeError):
    """Raised when a registered backend cannot load (package missing, weights not found)."""


class Registry(Generic[T]):
    """Named loaders for one tool; ``load(name, **opts)`` returns a cached instance.

    Args:
        tool: the tool's name, used in error messages ("faces", "asr", ...).
    """

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self._loaders: dict[str, Callable[..., T]] = {}
        self._about: dict[str, str] = {}
        self._onnx: set[str] = set()
        self._tool_names: dict[str, str] = {}
        self._needs: dict[str, tuple[str, ...]] = {}
        self._cache: dict[tuple, T] = {}
        self._lock = threading.Lock()

    def register(self, name: str, about: str = "", onnx: bool = False, tool_name: str | None = None,
                 needs: tuple[str, ...] = ()) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Decorator that registers ``loader`` under ``name``: ``about`` is the line ``--help`` shows for it,
        ``onnx`` says that it runs an ONNX model (so ``--device cuda`` also needs onnxruntime's CUDA provider,
        ``tools.core.runtime.check_device``), ``tool_name`` is the ``name`` every instance it loads has, when that
        does not depend on its options or files (``tool_name`` then answers without loading it), ``needs`` the
        pinned models (``tools.core.pins``) its default files come from (``needs`` answers without loading it)."""

        def deco(loader: Callable[..., T]) -> Callable[..., T]:
            self._loaders[name] = loader
            self._about[name] = about
            self._needs[name] = tuple(needs)
            if onnx:
                self._onnx.add(name)
            if tool_name is not None:
                self._tool_names[name] = tool_name
            return loader

        return deco

    def tool_name(self, name: str) -> str | None:
        """The ``name`` of the instances backend ``name`` loads, as registered (``register(tool_name=...)``), without
        loading it; None when it was not declared."""
        return self._tool_names.get(name)

    def needs(self, name: str) -> tuple[str, ...]:
        """The pinned models (``tools.core.pins``) backend ``name``'s default files come from, as registered
        (``register(needs=...)``; ``memory.index_config.IndexConfig.require_weights`` checks them before a build).

        Raises:
            UnknownBackendError: ``name`` is not registered.
        """
        return self._needs[self.check(name)]

    def about(self, name: str) -> str:
        """The description ``name`` was registered with ("" when none)."""
        return self._about.get(name, "")

    def runs_onnx(self, name: str) -> bool:
        """Whether backend ``name`` runs an ONNX model (registered with ``onnx=True``)."""
        return name in self._onnx

    def check(self, name: str) -> str:
        """``name`` when it is registered.

        Raises:
            UnknownBackendError: it is not (the message lists the registered names).
        """
        if name not in self._loaders:
            raise UnknownBackendError(f"unknown {self.tool} backend {name!r}; choose one of {self.names()}")
        return name

    def help(self, default: str) -> str:
        """One ``--help`` sentence naming each backend with its description, ``default`` marked."""
        return "; ".join(f"{n}: {self.about(n) or 'registered backend'}" + (" (default)" if n == default else "")
                         for n in sorted(self.names(), key=lambda n: n != default))

    def names(self) -> list[str]:
        """Registered backend names, sorted."""
        return sorted(self._loaders)

    def load(self, name: str, **opts: object) -> T:
        """Load (once) and return the backend ``name`` built with ``opts``.

        Raises:
            UnknownBackendError: ``name`` is not registered.
            BackendUnavailableError: the loader failed (missing package or weights, a file that is not the
                model, an option the model cannot take).
        """
        self.check(name)
        key = (name, tuple(sorted((k, repr(v)) for k, v in opts.items())))
        with self._lock:
            if key not in self._cache:
                try:
                    self._cache[key] = self._loaders[name](**opts)
                except (ImportError, OSError, ValueError) as exc:  # ValueError: weights or options it cannot take
                    raise BackendUnavailableError(f"{self.tool} backend {name!r} cannot load: {exc}") from exc
            return self._cache[key]
