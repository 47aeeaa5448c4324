"""Process set-up for every entry point (CLI, batch worker, evals, inspect): one place.

``configure_runtime`` keeps native libraries quiet (TF-Lite, glog, transformers), keeps Hugging Face
and litellm offline (no hub or cost-map downloads), and turns off
onnxruntime's telemetry completely: its Linux wheels carry the 1DS uploader, which looks up
``mobile.events.data.microsoft.com`` when the first inference environment starts unless
``ORT_DISABLE_TELEMETRY=1`` is set before that (onnxruntime PR #27379; ``disable_telemetry_events()``
alone only mutes later events). Checked with strace on a cold run: no ``connect`` outside AF_UNIX.

Library caches stay out of the environment: numba (librosa's compiled kernels, ``cache=True``) would
otherwise write its cache files into ``site-packages/librosa/**/__pycache__``; ``NUMBA_CACHE_DIR`` sends
them to ``<cache>/tmp/numba``. numba reads the variable when it is imported, and no entry point imports
numba (librosa) before ``configure_runtime`` (``tests/test_bad_input.py`` checks that a cold run leaves
the environment as it was).

``check_device`` tells, before any model loads, whether the device a run asks for (``--device``) can be
used: a missing GPU is one line for the user, not a traceback half-way through indexing.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import types
import warnings
from pathlib import Path

#: The highest instruction set oneDNN may use (``ONEDNN_MAX_CPU_ISA``) unless the environment names another. CTranslate2
#: (speech recognition) runs Whisper's convolutions and matrix products in oneDNN, and oneDNN's kernels decode
#: differently from one CPU to another above SSE4.1: its AVX-512 kernels from its AVX2 ones on an AMD EPYC (section 71
#: of ``evals/RESULTS.md``), and its AVX2 kernels on an Intel Xeon (family 6, model 167) from the same kernels on that
#: AMD EPYC (Zen 4): 5 of 10 recordings' segments differ and four pinned tests failed, where under qemu's emulated
#: EPYC-Milan the same host gave the AMD's transcript (section 111). At SSE4.1 both CPUs gave the same transcripts for
#: all 10 recordings, by beam search and greedily; SSE4.1 is on every x86-64 CPU since 2008. The cap costs that Xeon
#: 10 % of recognition time alone (a 112-s dialogue on one thread: 7.5-7.6 -> 8.3 s) and a third beside the picture
#: pass: the bench's 10-minute index 84-86 -> 109 s.
ONEDNN_MAX_ISA = "SSE41"
#: Whether CTranslate2 may use Intel MKL (``CT2_USE_MKL``) unless the environment says. By default it does on Intel CPUs
#: and runs oneDNN everywhere else, and MKL's int8 products decode differently: on an emulated Intel Skylake (qemu) the
#: sample's "by 14," started at 5.54 s for 5.48 s and every transcript's word probabilities moved, where with MKL off
#: the transcripts were those of the AMD CPUs to the bit (``evals/RESULTS.md`` section 93).
CT2_USE_MKL = "0"
#: ``reproducible_kernels``'s warning when CTranslate2 was imported before it could set ``CT2_USE_MKL``.
CT2_LOADED_EARLY = ("CTranslate2 was imported before affectseek set CT2_USE_MKL=0, and it reads that variable when it "
                    "is imported: on an Intel CPU this process may transcribe with Intel MKL, whose word times differ "
                    "from other runs' by a few hundredths of a second. Import affectseek's modules before "
                    "faster_whisper or ctranslate2, or set CT2_USE_MKL=0 in the environment.")
_KERNELS_CHECKED: list[bool] = []  # whether reproducible_kernels has run in this process


def reproducible_kernels() -> None:
    """Cap oneDNN at ``ONEDNN_MAX_ISA`` and keep CTranslate2 off Intel MKL (``CT2_USE_MKL``) for this process and its
    workers, unless ``ONEDNN_MAX_CPU_ISA`` or ``CT2_USE_MKL`` is set already (a user's own choice is kept). oneDNN
    reads its cap when it first runs, but CTranslate2 reads ``CT2_USE_MKL`` when ``ctranslate2`` is imported (set
    later, an Intel CPU still decodes with MKL: the talking head's "DC" then starts at 2.08 s for 2.06 s,
    ``evals/RESULTS.md`` section 118). So this runs before anything imports it: ``configure_runtime`` calls it, and so
    do the Whisper loader (``tools.perception.whisper.whisper_model``) and the import of
    ``tools.perception.log_mel``, which imports faster-whisper. Where the first call finds ``ctranslate2`` imported
    already without ``CT2_USE_MKL`` (a program that imported faster-whisper itself first), it warns
    (``RuntimeWarning``, ``CT2_LOADED_EARLY``)."""
    if not _KERNELS_CHECKED:
        _KERNELS_CHECKED.append(True)
        if "ctranslate2" in sys.modules and "CT2_USE_MKL" not in os.environ:
            warnings.warn(CT2_LOADED_EARLY, RuntimeWarning, stacklevel=2)
    os.environ.setdefault("ONEDNN_MAX_CPU_ISA", ONEDNN_MAX_ISA)
    os.environ.setdefault("CT2_USE_MKL", CT2_USE_MKL)


#: Held by every ``torch.onnx.export`` call (``tools.perception.cpu_onnx``, ``tools.perception.text_onnx``): the exporter
#: keeps process-wide state (``GLOBALS.in_onnx_export``), so two exports at once on two threads (the index's picture
#: pass and its speech pass, each loading a model on a first run) fail with "GLOBALS.in_onnx_export must be False".
ONNX_EXPORT_LOCK = threading.Lock()


def process_pool(workers: int):
    """A ``concurrent.futures.ProcessPoolExecutor`` of ``workers`` processes started afresh (``spawn``), not forked from
    this one: a fork copies only the forking thread, so a lock another thread held at that moment (MediaPipe's,
    onnxruntime's, a test runner's) stays held in the child forever. Forked from a pytest worker that had run
    MediaPipe, ``studies.faces.face_crops``'s two workers each waited on such a lock for 22 minutes until killed
    (``evals/RESULTS.md`` section 100). ``affectseek batch``'s local workers (``app.batch_tasks``) and the studies'
    pools come from here. The mapped functions must be importable (module level)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def _omp_threads() -> int | None:
    """``OMP_NUM_THREADS`` as a thread count (at least 1), or None where it is unset or not a whole number."""
    given = os.environ.get("OMP_NUM_THREADS", "").strip()
    return max(1, int(given)) if given.isdigit() else None


def cpu_budget() -> int:
    """The cores this process may keep busy: ``OMP_NUM_THREADS`` where it is set (a batch worker's share of the
    machine, ``app.batch_tasks``, or the user's own cap), else one per core (``os.cpu_count()``); at least 1."""
    return _omp_threads() or max(1, os.cpu_count() or 1)


def onnx_threads() -> int:
    """onnxruntime's intra-op thread count for a new CPU session: ``OMP_NUM_THREADS`` where it is set (a
    batch worker's share, ``app.batch_tasks``, or a cap the user's shell or container exports, which then holds for a
    single run too), else 0, onnxruntime's own default (one per physical core).
    onnxruntime does not read ``OMP_NUM_THREADS`` itself, so without this each of N workers would run a session's
    operators on every core."""
    return _omp_threads() or 0


def cpu_fields() -> dict[str, str]:
    """The first value of each field of ``/proc/cpuinfo`` (``model name``, ``flags``, ...), or {} where the file cannot
    be read (not Linux)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in lines:
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    return fields


def cpu_signature() -> str:
    """A short digest of this CPU's model and instruction-set flags (``cpu_fields``' ``model name`` and ``flags``;
    ``platform.processor()`` and ``platform.machine()`` where ``/proc/cpuinfo`` is absent), for naming results kept
    between runs that a CPU's kernels may round differently (``tools.perception.text_onnx``)."""
    import hashlib
    import platform

    fields = cpu_fields()
    described = [fields.get("model name", ""), fields.get("flags", "")] if fields else [platform.processor(),
                                                                                       platform.machine()]
    return hashlib.sha256("|".join(described).encode()).hexdigest()[:16]


class _Deferred(types.ModuleType):
    """Stands in for a module that is imported only when one of its attributes is first read."""

    def __getattr__(self, name: str):
        import importlib

        return getattr(importlib.import_module(self.__name__), name)


_MEDIAPIPE_LOCK = threading.Lock()


def import_mediapipe() -> types.ModuleType:
    """The ``mediapipe`` package, imported without importing matplotlib.

    ``import mediapipe`` (0.10.14) imports every legacy solution, among them ``drawing_utils``, whose
    ``import matplotlib.pyplot`` takes 0.7-0.9 s of a new process (``evals/RESULTS.md`` section 72) and is read
    only by ``drawing_utils.plot_landmarks``, which nothing here calls. While ``mediapipe`` is imported,
    ``matplotlib`` and ``matplotlib.pyplot`` are stand-ins that import the real module when one of their attributes
    is read (so ``plot_landmarks`` still works); they are removed from ``sys.modules`` afterwards, so any other
    ``import matplotlib`` gets the library itself. Where matplotlib is imported already, it is used as it is.

    Raises:
        ImportError: mediapipe is not installed.
    """
    with _MEDIAPIPE_LOCK:
        if "mediapipe" in sys.modules or "matplotlib" in sys.modules:
            import mediapipe

            return mediapipe
        package, pyplot = _Deferred("matplotlib"), _Deferred("matplotlib.pyplot")
        package.pyplot = pyplot  # what ``import matplotlib.pyplot as plt`` binds
        sys.modules.update({"matplotlib": package, "matplotlib.pyplot": pyplot})
        try:
            import mediapipe
        finally:
            for name, stand_in in (("matplotlib", package), ("matplotlib.pyplot", pyplot)):
                if sys.modules.get(name) is stand_in:
                    del sys.modules[name]
        return mediapipe


def configure_runtime(cache_dir: str | os.PathLike | None = None) -> None:
    """Set the environment and library switches described in the module doc (idempotent).

    ``cache_dir`` (``--cache-dir``) becomes ``$AFFECTSEEK_CACHE`` for this process and its workers, and
    the libraries that keep configuration or caches in the home folder or the temporary folder
    (matplotlib, TorchInductor, Triton, numba) keep them under ``<cache>/config`` and ``<cache>/tmp``,
    so a run writes only to the cache and to the outputs it was given, never into the environment.
    """
    if cache_dir is not None:
        os.environ["AFFECTSEEK_CACHE"] = os.path.abspath(cache_dir)
    from tools.core.registry import cache_root

    root = cache_root()
    os.environ.setdefault("MPLCONFIGDIR", str(root / "config" / "matplotlib"))
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(root / "tmp" / "torchinductor"))
    os.environ.setdefault("TRITON_CACHE_DIR", str(root / "tmp" / "triton"))
    os.environ.setdefault("NUMBA_CACHE_DIR", str(root / "tmp" / "numba"))
    os.environ.setdefault("GLOG_minloglevel", "2")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    reproducible_kernels()
    warnings.filterwarnings("ignore")
    try:
        import onnxruntime
    except ImportError:
        return
    onnxruntime.disable_telemetry_events()


#: Device names a run accepts: ``cpu``, ``cuda`` (the current CUDA device) or ``cuda:N``.
DEVICE_PATTERN = re.compile(r"cpu|cuda(:[0-9]+)?")


class DeviceError(ValueError):
    """The device a run asked for cannot be used here (the message is one line, for the user)."""


def check_device(device: str, onnx: bool = False, ctranslate2: bool = False) -> None:
    """Check, before any model loads, that ``device`` can run this process's models.

    ``cpu`` always can (nothing is imported). ``cuda`` / ``cuda:N`` needs torch to see a CUDA device
    (``torch.cuda.is_available()``, and at least N + 1 of them), and with ``onnx`` (an ONNX model would
    run on it, e.g. ``--expression-backend hsemotion``) onnxruntime's ``CUDAExecutionProvider``, with
    ``ctranslate2`` (speech recognition through faster-whisper / WhisperX) a CUDA device CTranslate2 sees.
    Importing torch costs a second or two, so call it only once, right after the settings are read.

    Raises:
        DeviceError: ``device`` is not ``cpu``, ``cuda`` or ``cuda:N``, or CUDA was asked for and is not
            available to one of the libraries named above (the message says which, in one line).
    """
    device = str(device)
    if not DEVICE_PATTERN.fullmatch(device):
        raise DeviceError(f"device {device!r}: use cpu, cuda or cuda:N")
    if device == "cpu":
        return
    index = int(device.partition(":")[2] or 0)
    try:
        import torch
    except ImportError as exc:
        raise DeviceError(f"device {device}: torch cannot be imported ({exc})") from exc
    if not torch.cuda.is_available():
        raise DeviceError(f"device {device}: CUDA is not available (torch {torch.__version__} sees no CUDA "
                          "device); run with --device cpu")
    if index >= torch.cuda.device_count():
        raise DeviceError(f"device {device}: torch sees {torch.cuda.device_count()} CUDA device(s)")
    if onnx:
        onnx_providers(device)
    if ctranslate2:
        try:
            import ctranslate2 as ct2
        except ImportError:
            return  # the ASR backend reports its own missing package when it loads
        if ct2.get_cuda_device_count() <= index:
            raise DeviceError(f"device {device}: CTranslate2 {ct2.__version__} (speech recognition) sees "
                              f"{ct2.get_cuda_device_count()} CUDA device(s); run with --device cpu")


def torch_device(device: str):
    """The ``torch.device`` a model loader puts its weights on: ``cpu``, ``cuda`` or ``cuda:N``.

    Raises:
        DeviceError: CUDA was asked for and torch sees no CUDA device, or torch does not know the name.
    """
    import torch

    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise DeviceError(f"device {device!r}: torch sees no CUDA device")
    try:
        return torch.device(device)
    except RuntimeError as exc:
        raise DeviceError(f"device {device!r}: {exc}") from exc


def onnx_providers(device: str) -> list:
    """onnxruntime execution providers for ``device``: ``["CPUExecutionProvider"]`` on ``cpu``; on ``cuda``
    / ``cuda:N`` the CUDA provider (device N) first and the CPU one for any operator it lacks.

    Raises:
        DeviceError: a GPU was asked for and this onnxruntime has no ``CUDAExecutionProvider`` (the CPU-only
            ``onnxruntime`` wheel; ``onnxruntime-gpu`` has it).
    """
    if device == "cpu":
        return ["CPUExecutionProvider"]
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")  # before onnxruntime starts (module doc)
    import onnxruntime as ort

    if "CUDAExecutionProvider" not in ort.get_available_providers():
        raise DeviceError(f"device {device}: onnxruntime {ort.__version__} has no CUDAExecutionProvider "
                          "(install onnxruntime-gpu, or run with --device cpu)")
    return [("CUDAExecutionProvider", {"device_id": int(str(device).partition(":")[2] or 0)}), "CPUExecutionProvider"]
