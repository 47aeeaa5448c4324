"""Whisper's log-mel features computed alike on every CPU (``tools.perception.log_mel``)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from tests.conftest import REPO, SAMPLE


def test_log10_is_numpys_to_float64_precision():
    from tools.perception.log_mel import log10

    x = np.exp(np.random.default_rng(0).uniform(-40.0, 40.0, 200_000))
    x = np.concatenate([x, [1e-10, 0.5, 1.0, 2.0, 10.0, 1e10, np.sqrt(0.5), np.nextafter(np.sqrt(0.5), 1.0)]])
    ours, numpys = log10(x), np.log10(x)
    assert np.all(np.abs(ours - numpys) <= 4e-16 * np.maximum(np.abs(numpys), 1.0))
    assert log10(np.array([1.0]))[0] == 0.0


def test_features_are_faster_whispers_to_within_rounding():
    """On the sample's speech the features are faster-whisper's own (shape, frames, values to a few units in the last
    place of float32), and a chunk length sets the extractor's window as faster-whisper's does."""
    from faster_whisper.feature_extractor import FeatureExtractor

    from tools.core.media import load_audio
    from tools.perception.log_mel import ReproducibleFeatures

    audio = load_audio(SAMPLE)
    theirs, ours = FeatureExtractor(), ReproducibleFeatures.like(FeatureExtractor())
    expected, got = theirs(audio, chunk_length=20), ours(audio, chunk_length=20)
    assert got.dtype == np.float32 and got.shape == expected.shape == (80, len(audio) // 160 + 1)
    assert np.abs(got - expected).max() <= 5e-7
    assert (ours.n_samples, ours.nb_max_frames) == (theirs.n_samples, theirs.nb_max_frames) == (320_000, 2000)


def test_features_do_not_follow_the_cpus_vector_kernels():
    """The features of the sample's speech are the same bits whether numpy runs its AVX-512 loops and OpenBLAS its
    own kernel for this CPU or both are held to AVX2 (``NPY_DISABLE_CPU_FEATURES``, ``OPENBLAS_CORETYPE``), as on
    a CPU without AVX-512; faster-whisper's own features differed between the two on an AVX-512 AMD EPYC (Zen 4:
    ``evals/RESULTS.md`` section 89). On a CPU without AVX-512 the two runs are alike anyway."""
    code = ("import hashlib, json, sys; sys.path.insert(0, '.'); from tools.core.media import load_audio; "
            "from tools.perception.log_mel import ReproducibleFeatures; "
            "print(json.dumps(hashlib.sha256(ReproducibleFeatures()(load_audio(sys.argv[1])).tobytes()).hexdigest()))")

    def digest(env: dict[str, str]) -> str:
        import os

        out = subprocess.run([sys.executable, "-c", code, str(SAMPLE)], check=True, cwd=REPO, capture_output=True,
                             text=True, timeout=300, env={**os.environ, **env}).stdout
        return json.loads(out.splitlines()[-1])

    held = {"NPY_DISABLE_CPU_FEATURES": "X86_V4,AVX512_ICL,AVX512_SPR", "OPENBLAS_CORETYPE": "Haswell"}
    assert digest({}) == digest(held)
