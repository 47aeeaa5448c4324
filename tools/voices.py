"""Voice identity embeddings: who is speaking, told from the sound of the voice.

Default backend ``ge2e``: the GE2E speaker encoder of Resemblyzer (Wan et al., 2018, "Generalized
End-to-End Loss for Speaker Verification", ICASSP; a 3-layer LSTM of 256 units over 40-band mel
frames of 25 ms every 10 ms at 16 kHz, a 256-d L2-normalised embedding per 1.6 s partial utterance).
The weights (``pretrained.pt``, trained by Resemblyzer's authors on LibriSpeech, VoxCeleb 1 and 2)
ship inside the ``resemblyzer`` wheel (Apache-2.0): nothing is downloaded. ``tools.diarization``
clusters the embeddings into voices; the distance it cuts at is chosen on labelled speech here
(``evals.diarization``).
"""

from __future__ import annotations

import bisect
from typing import Protocol

import numpy as np

from tools.registry import BackendUnavailableError, Registry

SAMPLE_RATE = 16_000
#: Mel frames per second of the GE2E front end (10 ms hop, Resemblyzer's ``hparams``).
FRAMES_PER_S = 100
#: The mel spectrogram is computed over stretches of about this many seconds of windows (plus a margin),
#: so memory stays flat on long videos (a whole hour's STFT took ~700 MiB).
MEL_CHUNK_S = 60.0
_MARGIN_S = 0.5


class VoiceIdentity(Protocol):
    """``embed(audio, windows)`` -> (N, D) float32 unit vectors, one per window ``(start_s, end_s)``
    of 16 kHz mono float ``audio``; nearer in cosine distance = more alike voices."""

    name: str

    def embed(self, audio: np.ndarray, windows: list[tuple[float, float]]) -> np.ndarray: ...


class GE2EVoiceIdentity:
    """Resemblyzer's GE2E encoder (see the module doc), run in torch on the CPU.

    Windows of equal length run as one batch; the mel spectrogram is computed once per stretch of about
    ``MEL_CHUNK_S`` seconds (frames inside a stretch equal those of the whole signal's spectrogram).

    Raises:
        BackendUnavailableError: ``resemblyzer`` (or its ``librosa`` / ``webrtcvad`` imports) is missing.
    """

    def __init__(self) -> None:
        try:
            from resemblyzer import VoiceEncoder, wav_to_mel_spectrogram
        except ImportError as exc:
            raise BackendUnavailableError("voice identity backend 'ge2e' needs resemblyzer "
                                          "(pip install --no-deps resemblyzer==0.1.4 librosa webrtcvad-wheels)"
                                          ) from exc
        self._encoder = VoiceEncoder("cpu", verbose=False)
        self._mel = wav_to_mel_spectrogram
        self.name = "resemblyzer-ge2e"

    def embed(self, audio: np.ndarray, windows: list[tuple[float, float]]) -> np.ndarray:
        import torch

        out = np.zeros((len(windows), 256), np.float32)
        audio = np.asarray(audio, np.float32)
        hop = SAMPLE_RATE // FRAMES_PER_S
        order = sorted(range(len(windows)), key=lambda i: windows[i][0])
        starts = [windows[i][0] for i in order]
        pos = 0
        while pos < len(order):
            first = starts[pos]
            end = bisect.bisect_left(starts, first + MEL_CHUNK_S, lo=pos + 1)
            group, pos = order[pos:end], end
            # a stretch starting on the frame grid: its frames are the whole signal's frames from `f0` on
            f0 = max(0, int((first - _MARGIN_S) * FRAMES_PER_S))
            last = max(windows[i][1] for i in group) + _MARGIN_S
            mel = self._mel(audio[f0 * hop:int(last * SAMPLE_RATE)])
            spans = {i: (max(0, round(windows[i][0] * FRAMES_PER_S) - f0),
                         min(len(mel), round(windows[i][1] * FRAMES_PER_S) - f0)) for i in group}
            by_len: dict[int, list[int]] = {}
            for i, (a, b) in spans.items():
                if b - a >= 2:
                    by_len.setdefault(b - a, []).append(i)
            with torch.inference_mode():
                for n, rows in by_len.items():
                    for k in range(0, len(rows), 256):
                        batch = rows[k:k + 256]
                        x = torch.from_numpy(np.stack([mel[spans[i][0]:spans[i][0] + n] for i in batch]))
                        out[batch] = self._encoder(x).numpy()
        return out


VOICE_IDENTITIES: Registry[VoiceIdentity] = Registry("voice identity")


@VOICE_IDENTITIES.register("ge2e")
def _load_ge2e() -> VoiceIdentity:
    return GE2EVoiceIdentity()


def load_voice_identity(name: str = "ge2e", **opts: object) -> VoiceIdentity:
    """Return the cached voice identity backend ``name`` (see ``VOICE_IDENTITIES.names()``)."""
    return VOICE_IDENTITIES.load(name, **opts)
