"""Whisper's log-mel features, the same on every x86-64 CPU.

Whisper reads 25 ms Hann windows every 10 ms: the power spectrum through 80 (large-v3: 128) mel filters, log10
floored at 1e-10, clipped to 8 below its maximum and scaled as (x + 4) / 4 (Radford et al., 2022, "Robust Speech
Recognition via Large-Scale Weak Supervision", section 2.2). faster-whisper's ``FeatureExtractor`` applies the filters
with a float32 matrix product (OpenBLAS, whose kernels follow the CPU: SkylakeX on an AVX-512 CPU, Haswell on an
AVX2 one) and takes numpy's float32 ``log10`` (its AVX-512 loops where the CPU has them). Both round differently on
an AVX-512 CPU: on an AMD EPYC of the Zen 4 generation 43 % of the bundled sample's features differ from those of an
AVX2 CPU by one unit in the last place, and beam search decodes the sample's first line into other segments, which
moves a pinned answer (``evals/RESULTS.md`` section 89).

``ReproducibleFeatures`` is that extractor with the filters and the logarithm computed by operations whose result IEEE
754 fixes on any CPU, in faster-whisper's float32: the power spectrum as re^2 + im^2, each filter's weighted sum term
by term in frequency order (``mel_energies``; numpy's elementwise products and sums are rounded once each, whatever
vector width runs them), and the logarithm as a float64 polynomial of elementwise sums and products (``log10``),
rounded to float32. The short-time Fourier transform is faster-whisper's own (numpy's pocketfft, which gave the same
bits on both CPUs). Its features differ from faster-whisper's by a few units in the last place (tests/test_log_mel.py);
the same sums in float64 (features nearer the exact ones) were tried and not kept: they read the sample's first words
"I work in" for "by working" (section 89).
"""

from __future__ import annotations

import numpy as np

from tools.core.runtime import reproducible_kernels

reproducible_kernels()  # faster-whisper imports CTranslate2, which reads CT2_USE_MKL as it is imported
from faster_whisper.feature_extractor import FeatureExtractor

#: Columns (10 ms frames) computed at a time: bounds the work arrays (80 filters, float64 for the logarithm: 20 MB)
#: on an hour of audio.
BLOCK_FRAMES = 30_000
#: Terms of the series ln(m) = 2 (s + s^3/3 + s^5/5 + ...), s = (m - 1) / (m + 1), used by ``log10``: with m in
#: [sqrt(1/2), sqrt(2)), |s| < 0.172, so the first term left out is below 1e-16 of the sum.
SERIES_TERMS = 12
_LOG10_2 = 0.30102999566398120
_LOG10_E = 0.43429448190325176


def log10(x: np.ndarray) -> np.ndarray:
    """Base-10 logarithm of positive float64 values, within about 2e-16 relative of the exact one, by ``frexp`` and
    float64 sums, products and one division per element, so its bits are the same on every IEEE 754 CPU (numpy's
    ``log10`` may run vector loops of the CPU's own precision).

    Args:
        x: positive finite values (any shape), as float64.

    Returns:
        float64 array of the shape of ``x``.
    """
    mantissa, exponent = np.frexp(np.asarray(x, np.float64))  # x = mantissa * 2**exponent, mantissa in [0.5, 1)
    low = mantissa < np.sqrt(0.5)
    mantissa = np.where(low, mantissa * 2.0, mantissa)
    exponent = exponent - low
    s = (mantissa - 1.0) / (mantissa + 1.0)
    s2 = s * s
    series = np.full_like(s, 1.0 / (2 * SERIES_TERMS - 1))
    for k in range(SERIES_TERMS - 2, -1, -1):
        series = series * s2 + 1.0 / (2 * k + 1)
    return exponent * _LOG10_2 + (2.0 * s * series) * _LOG10_E


def mel_energies(power: np.ndarray, filters: np.ndarray) -> np.ndarray:
    """The filters' weighted sums of a power spectrum, float32 (M, T), each a sum over the filter's nonzero weights in
    frequency order, every product and sum rounded to float32 once (the same bits on every CPU, unlike a BLAS product,
    whose kernels sum in an order of their own).

    Args:
        power: power spectrum (F, T), frequency bins by frames, float32.
        filters: mel filter weights (M, F), float32.
    """
    power = np.asarray(power, np.float32)
    out = np.zeros((filters.shape[0], power.shape[1]), np.float32)
    for m, weights in enumerate(np.asarray(filters, np.float32)):
        for j in np.flatnonzero(weights):
            out[m] += weights[j] * power[j]
    return out


class ReproducibleFeatures(FeatureExtractor):
    """faster-whisper's ``FeatureExtractor`` (same arguments, attributes and output: float32 (n_mels, frames)) with
    the mel filters and the logarithm computed alike on every CPU (see the module doc); set as a ``WhisperModel``'s
    ``feature_extractor``, it is what the model decodes, detects the language and aligns words from."""

    @classmethod
    def like(cls, extractor: FeatureExtractor) -> ReproducibleFeatures:
        """An extractor with ``extractor``'s settings (mel bands, sampling rate, hop, chunk length, FFT size)."""
        return cls(feature_size=extractor.mel_filters.shape[0], sampling_rate=extractor.sampling_rate,
                   hop_length=extractor.hop_length, chunk_length=extractor.chunk_length, n_fft=extractor.n_fft)

    def __call__(self, waveform: np.ndarray, padding: int = 160, chunk_length: int | None = None) -> np.ndarray:
        """Log-mel features float32 (n_mels, frames) of mono audio (n,) at ``sampling_rate``, ``padding`` zero
        samples appended; ``chunk_length`` (seconds), when given, becomes the extractor's window as in
        faster-whisper."""
        if chunk_length is not None:
            self.n_samples = chunk_length * self.sampling_rate
            self.nb_max_frames = self.n_samples // self.hop_length
        waveform = np.asarray(waveform, np.float32)
        if padding:
            waveform = np.pad(waveform, (0, padding))
        window = np.hanning(self.n_fft + 1)[:-1].astype(np.float32)
        spectrum = self.stft(waveform, self.n_fft, self.hop_length, window=window,
                             return_complex=True).astype(np.complex64)[:, :-1]
        frames = spectrum.shape[1]
        out = np.empty((self.mel_filters.shape[0], frames), np.float32)
        for a in range(0, frames, BLOCK_FRAMES):
            part = spectrum[:, a:a + BLOCK_FRAMES]
            energies = mel_energies(part.real * part.real + part.imag * part.imag, self.mel_filters)
            out[:, a:a + BLOCK_FRAMES] = log10(np.maximum(energies, np.float32(1e-10)).astype(np.float64))
        out = np.maximum(out, out.max() - np.float32(8.0))
        return (out + np.float32(4.0)) / np.float32(4.0)
