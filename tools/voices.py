"""Voice identity embeddings: who is speaking, told from the sound of the voice.

Default backend ``ge2e``: the GE2E speaker encoder (Wan et al., 2018, "Generalized End-to-End Loss for
Speaker Verification", ICASSP) with the weights Resemblyzer's authors trained on LibriSpeech, VoxCeleb 1
and 2 (``resemblyzer`` 0.1.4, ``pretrained.pt``, Apache-2.0), converted once to
``tools/models/ge2e_voice_encoder.npz`` and shipped with this package (data card
``tools/models/WEIGHTS.md``): nothing is downloaded and ``resemblyzer`` is not needed. The network runs
in torch here (``GE2EEncoder``): a 3-layer LSTM of 256 units over 40-band mel frames of 25 ms every
10 ms at 16 kHz, the last layer's final hidden state through a 256 x 256 linear layer, ReLU and L2
normalisation: a 256-d unit vector per 1.6 s partial utterance, equal to Resemblyzer's own embeddings
to float precision (``tests/test_shipped_weights.py``). ``tools.diarization`` clusters the embeddings into
voices; the distance it cuts at is chosen on labelled speech here (``evals.diarization``).
"""

from __future__ import annotations

import bisect
import os
import zipfile
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.registry import BackendUnavailableError, Registry

SAMPLE_RATE = 16_000
#: Mel frames per second of the GE2E front end (10 ms hop, Resemblyzer's ``hparams``).
FRAMES_PER_S = 100
#: STFT window (25 ms) and hop (10 ms) in samples at ``SAMPLE_RATE``, and mel bands of the front end.
N_FFT, HOP, N_MELS = 400, 160, 40
#: LSTM width and depth, and embedding size, of the encoder.
HIDDEN, LAYERS, EMBEDDING = 256, 3, 256
#: The shipped encoder weights (see the module doc): torch state-dict names -> float32 arrays.
GE2E_WEIGHTS = Path(__file__).parent / "models" / "ge2e_voice_encoder.npz"
#: The mel spectrogram is computed over stretches of about this many seconds of windows (plus a margin),
#: so memory stays flat on long videos (a whole hour's STFT took ~700 MiB).
MEL_CHUNK_S = 60.0
_MARGIN_S = 0.5


class VoiceIdentity(Protocol):
    """``embed(audio, windows)`` -> (N, D) float32 unit vectors, one per window ``(start_s, end_s)``
    of 16 kHz mono float ``audio``; nearer in cosine distance = more alike voices."""

    name: str

    def embed(self, audio: np.ndarray, windows: list[tuple[float, float]]) -> np.ndarray: ...


def mel_frames(audio: np.ndarray) -> np.ndarray:
    """The encoder's input for 16 kHz mono float ``audio`` (S,): a power mel spectrogram (not log),
    float32 of shape (frames, 40), frame ``i`` centred on sample ``160 * i`` (``S // 160 + 1`` frames).

    librosa's ``melspectrogram`` with the front end of GE2E as Resemblyzer trained it (its
    ``hparams.py`` / ``audio.py``): a 400-sample (25 ms) Hann-windowed, zero-padded centred STFT every
    160 samples (10 ms), power 2, 40 Slaney-normalised mel bands from 0 to 8 kHz.

    Raises:
        ImportError: librosa is not installed.
    """
    import librosa

    spec = librosa.feature.melspectrogram(y=np.asarray(audio, np.float32), sr=SAMPLE_RATE, n_fft=N_FFT,
                                          hop_length=HOP, n_mels=N_MELS)
    return np.ascontiguousarray(spec.astype(np.float32).T)


class GE2EEncoder:
    """The GE2E speaker encoder's forward pass in torch (see the module doc).

    ``encoder(mels)`` takes mel frames (N, T, 40) float32 (``mel_frames`` of N equally long windows, T >= 1)
    and returns (N, 256) float32 unit vectors as a numpy array on the CPU.

    Args:
        weights: ``.npz`` of the torch parameters ``lstm.{weight_ih,weight_hh,bias_ih,bias_hh}_l{0,1,2}``
            and ``linear.{weight,bias}`` (default: the shipped ``GE2E_WEIGHTS``).
        device: torch device to run on, ``"cpu"`` or ``"cuda"`` (``"cuda:1"``, ...).

    Raises:
        FileNotFoundError: ``weights`` does not exist.
        ValueError: the file is not such an ``.npz`` (a tensor missing, extra or of another shape), or
            ``device`` is CUDA and torch sees no CUDA device.
    """

    def __init__(self, weights: str | os.PathLike = GE2E_WEIGHTS, device: str = "cpu") -> None:
        import torch

        path = Path(weights)
        if not path.is_file():
            raise FileNotFoundError(f"GE2E voice encoder weights not found: {path} (the affectseek package ships "
                                    f"tools/models/{GE2E_WEIGHTS.name}; reinstall the package)")
        if str(device).startswith("cuda") and not torch.cuda.is_available():
            raise ValueError(f"device {device!r}: torch sees no CUDA device")
        try:
            with np.load(path) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError, zipfile.BadZipFile) as exc:
            raise ValueError(f"{path}: not an .npz file ({exc})") from exc
        self._lstm = torch.nn.LSTM(N_MELS, HIDDEN, num_layers=LAYERS, batch_first=True)
        self._linear = torch.nn.Linear(HIDDEN, EMBEDDING)
        parts = {"lstm.": self._lstm, "linear.": self._linear}
        extra = [k for k in arrays if not k.startswith(tuple(parts))]
        if extra:
            raise ValueError(f"{path}: not GE2E encoder weights (unexpected tensors {extra})")
        for prefix, module in parts.items():
            state = {k[len(prefix):]: torch.from_numpy(np.asarray(v, np.float32))
                     for k, v in arrays.items() if k.startswith(prefix)}
            try:
                module.load_state_dict(state, strict=True)
            except RuntimeError as exc:
                raise ValueError(f"{path}: not GE2E encoder weights ({exc})") from exc
        try:
            self.device = torch.device(device)
        except RuntimeError as exc:
            raise ValueError(f"device {device!r}: {exc}") from exc
        for module in parts.values():
            module.to(self.device).eval()

    def __call__(self, mels: np.ndarray) -> np.ndarray:
        import torch
        import torch.nn.functional as F

        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(mels, np.float32)).to(self.device)
            _, (hidden, _) = self._lstm(x)  # hidden: (layers, N, 256); the last layer's state at the last frame
            return F.normalize(torch.relu(self._linear(hidden[-1])), dim=1).cpu().numpy()


class GE2EVoiceIdentity:
    """The GE2E encoder (see the module doc) over windows of one recording.

    Windows of equal length run as one batch (at most 256 a batch); the mel spectrogram is computed once
    per stretch of about ``MEL_CHUNK_S`` seconds (frames inside a stretch equal those of the whole
    signal's spectrogram). ``embed`` returns (N, 256) float32 unit vectors; a window shorter than 2 frames
    (20 ms) gets a zero vector.

    Args:
        device: torch device of the encoder, ``"cpu"`` (default) or ``"cuda"``.
        weights: the encoder ``.npz`` (default: the shipped ``GE2E_WEIGHTS``).

    Raises:
        BackendUnavailableError: librosa (the mel front end) is not installed.
        FileNotFoundError, ValueError: see ``GE2EEncoder``.
    """

    def __init__(self, device: str = "cpu", weights: str | os.PathLike | None = None) -> None:
        try:
            import librosa  # noqa: F401  (the front end; imported here so a missing one fails at load)
        except ImportError as exc:
            raise BackendUnavailableError("voice identity backend 'ge2e' needs librosa (pip install librosa)") from exc
        self._encoder = GE2EEncoder(GE2E_WEIGHTS if weights is None else weights, device)
        # the embeddings are Resemblyzer's (same weights, same front end): the name caches are keyed on is kept
        self.name = "resemblyzer-ge2e"

    def embed(self, audio: np.ndarray, windows: list[tuple[float, float]]) -> np.ndarray:
        out = np.zeros((len(windows), EMBEDDING), np.float32)
        audio = np.asarray(audio, np.float32)
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
            mel = mel_frames(audio[f0 * HOP:int(last * SAMPLE_RATE)])
            spans = {i: (max(0, round(windows[i][0] * FRAMES_PER_S) - f0),
                         min(len(mel), round(windows[i][1] * FRAMES_PER_S) - f0)) for i in group}
            by_len: dict[int, list[int]] = {}
            for i, (a, b) in spans.items():
                if b - a >= 2:
                    by_len.setdefault(b - a, []).append(i)
            for n, rows in by_len.items():
                for k in range(0, len(rows), 256):
                    batch = rows[k:k + 256]
                    out[batch] = self._encoder(np.stack([mel[spans[i][0]:spans[i][0] + n] for i in batch]))
        return out


VOICE_IDENTITIES: Registry[VoiceIdentity] = Registry("voice identity")


@VOICE_IDENTITIES.register("ge2e")
def _load_ge2e(device: str = "cpu", weights: str | None = None) -> VoiceIdentity:
    return GE2EVoiceIdentity(device=device, weights=weights)


def load_voice_identity(name: str = "ge2e", **opts: object) -> VoiceIdentity:
    """Return the cached voice identity backend ``name`` (see ``VOICE_IDENTITIES.names()``); ``opts``
    go to its loader (``ge2e``: ``device="cpu"|"cuda"``, ``weights=PATH``)."""
    return VOICE_IDENTITIES.load(name, **opts)
