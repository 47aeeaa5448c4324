"""Face identity descriptors in a worker process, beside the index build.

dlib holds the GIL while it computes a descriptor, so a second thread adds nothing (58.5 ms a descriptor alone,
59.0 ms with two threads; ``evals/RESULTS.md`` section 53). ``IdentityWorker`` starts
``python -m tools.perception.identity_worker``, which reads one pickled ``(backend, [(JPEG bytes, Box), ...])`` from
stdin (boxes in normalized image coordinates of the crop), computes the descriptors with
``tools.perception.identity.describe_crops`` and writes their pickled list of (D,) float32 arrays to stdout. A
subprocess rather than ``multiprocessing``: nothing of the caller's ``__main__`` is imported again, so a user's
script without a main guard is not run twice. The pickles travel only between the build and the child it started.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np

from tools.core.schema import Box

_ROOT = Path(__file__).resolve().parents[2]


class IdentityWorker:
    """One worker process computing the descriptors of ``crops`` ((JPEG bytes, face box in the crop)) with the CPU
    identity ``backend``; started on construction, collected by ``result``."""

    def __init__(self, backend: str, crops: list[tuple[bytes, Box]]) -> None:
        # run from the folder holding this package, so ``-m`` finds this ``tools`` whatever the caller's folder holds
        self._proc = subprocess.Popen([sys.executable, "-m", "tools.perception.identity_worker"], cwd=_ROOT,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._n = len(crops)
        try:
            pickle.dump((backend, crops), self._proc.stdin)
            self._proc.stdin.close()
        except OSError:  # the child died before reading: ``result`` says so
            pass

    def result(self) -> list[np.ndarray] | None:
        """The descriptors in the order of the crops; None when the worker failed (the caller computes them)."""
        try:
            out = pickle.load(self._proc.stdout)
        except (EOFError, pickle.UnpicklingError, OSError):
            out = None
        if self._proc.wait() != 0 or not isinstance(out, list) or len(out) != self._n:
            return None
        return out


def _main() -> None:
    from tools.perception.identity import describe_crops

    backend, crops = pickle.load(sys.stdin.buffer)
    pickle.dump(describe_crops(backend, crops), sys.stdout.buffer)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    _main()
