"""Process set-up for every entry point (CLI, batch worker, evals, inspect): one place.

``configure_runtime`` keeps native libraries quiet (TF-Lite, glog, transformers), keeps Hugging Face
and litellm offline (no hub or cost-map downloads), selects Keras' torch backend, and turns off
onnxruntime's telemetry events before any inference session exists. Measured with strace: this removes
the DNS lookups of a warm query; a cold run (index build) still shows a few DNS lookups from
onnxruntime's native code, not yet traced to their cause.
"""

from __future__ import annotations

import os
import warnings


def configure_runtime() -> None:
    """Set the environment and library switches described in the module doc (idempotent)."""
    os.environ.setdefault("GLOG_minloglevel", "2")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("KERAS_BACKEND", "torch")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    warnings.filterwarnings("ignore")
    try:
        import onnxruntime
    except ImportError:
        return
    onnxruntime.disable_telemetry_events()
