"""The bench's peak memory is each measured process's own (``benches/bench_index.py``)."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import REPO


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="no /proc (not Linux)")
def test_a_childs_peak_memory_is_its_own_not_the_parents():
    """A child started while this process holds 300 MB more: ``ru_maxrss`` in the child counts them (Linux carries
    the forked image's high-water mark over ``exec``), the bench's ``own_peak_rss_mib`` does not."""
    held = np.ones(300 * 2**20, dtype=np.uint8)  # touched, so resident
    code = ("import resource, sys; sys.path.insert(0, '.'); from benches.bench_index import own_peak_rss_mib; "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, own_peak_rss_mib())")
    out = subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, capture_output=True, text=True,
                         timeout=120).stdout.split()
    inherited, own = float(out[0]), float(out[1])
    assert held.sum() == 300 * 2**20
    assert inherited >= 300  # the forked image's mark, carried over exec
    assert own < 150  # the child's own program (Python, numpy not imported) stays far below
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 >= 300
