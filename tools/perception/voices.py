"""Voice identity embeddings: who is speaking, told from the sound of the voice.

Default backend ``ge2e``: the GE2E speaker encoder (Wan et al., 2018, "Generalized End-to-End Loss for
Speaker Verification", ICASSP) with the weights Resemblyzer's authors trained on LibriSpeech, VoxCeleb 1
and 2 (``resemblyzer`` 0.1.4, ``pretrained.pt``, Apache-2.0), taken unchanged from Resemblyzer's wheel
into the model cache by ``affectseek models --fetch defaults`` (``tools.core.fetch``, SHA-256 pinned; data card
``tools/models/WEIGHTS.md``): runs download nothing and ``resemblyzer`` is not installed. The network is built
in torch here and run by onnxruntime on the CPU (``GE2EEncoder``): a 3-layer LSTM of 256 units over 40-band mel
frames of 25 ms every 10 ms at 16 kHz, the last layer's final hidden state through a 256 x 256 linear layer, ReLU and L2
normalisation: a 256-d unit vector per 1.6 s partial utterance, equal to Resemblyzer's own embeddings
to float precision (``tests/test_default_weights.py``). ``tools.signals.diarization`` clusters the embeddings into
voices; the distance it cuts at is chosen on labelled speech here (``studies.diarization``).
"""

from __future__ import annotations

import bisect
import os
import pickle
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.core.derived import file_sha256
from tools.core.registry import BackendUnavailableError, Registry
from tools.core.runtime import cpu_budget
from tools.perception.cpu_onnx import CpuOnnx

SAMPLE_RATE = 16_000
#: Mel frames per second of the GE2E front end (10 ms hop, Resemblyzer's ``hparams``).
FRAMES_PER_S = 100
#: STFT window (25 ms) and hop (10 ms) in samples at ``SAMPLE_RATE``, and mel bands of the front end.
N_FFT, HOP, N_MELS = 400, 160, 40
#: LSTM width and depth, and embedding size, of the encoder.
HIDDEN, LAYERS, EMBEDDING = 256, 3, 256
#: The default encoder weights: Resemblyzer 0.1.4's ``pretrained.pt``, a fetched model (``tools.core.fetch``).
GE2E_MODEL, GE2E_FILE = "ge2e-resemblyzer", "pretrained.pt"
#: The mel spectrogram is computed over stretches of about this many seconds of windows (plus a margin),
#: so memory stays flat on long videos (a whole hour's STFT took ~700 MiB).
MEL_CHUNK_S = 60.0
_MARGIN_S = 0.5
#: Threads that run the encoder's batches side by side, each batch on one intra-op thread (at most
#: ``tools.core.runtime.cpu_budget()``): a batch's vectors do not depend on the thread that computed them. In the
#: index diarization follows recognition, which on a speech-heavy video ends after the pictures, so both cores are
#: free then (the bench's hour: 17.1 -> 10.9 s; ``evals/RESULTS.md`` section 121).
ENCODER_WORKERS = 2
#: The most windows the encoder reads in one batch.
ENCODER_BATCH = 256


class VoiceIdentity(Protocol):
    """``embed(audio, windows)`` -> (N, D) float32 unit vectors, one per window ``(start_s, end_s)``
    of 16 kHz mono float ``audio``; nearer in cosine distance = more alike voices."""

    name: str

    def embed(self, audio: np.ndarray, windows: list[tuple[float, float]]) -> np.ndarray: ...


def mel_frames(audio: np.ndarray) -> np.ndarray:
    """The encoder's input for 16 kHz mono float ``audio`` (S,): a power mel spectrogram (not log),
    float32 of shape (frames, 40), frame ``i`` centred on sample ``160 * i`` (``S // 160 + 1`` frames).

    The front end of GE2E as Resemblyzer trained it (its ``hparams.py`` / ``audio.py``, librosa's
    ``melspectrogram``): a 400-sample (25 ms) periodic-Hann-windowed, zero-padded centred STFT every 160 samples
    (10 ms), power 2, 40 Slaney-normalised mel bands from 0 to 8 kHz (``librosa.filters.mel``). The STFT is numpy's
    real FFT over the framed signal: the same numbers as ``librosa.feature.melspectrogram`` to float32 rounding
    (7.6e-6 at most on a minute of speech whose largest value is 82) without importing ``librosa.feature``, whose
    import compiles numba kernels for 10-20 s on a machine whose numba cache is empty (a new user's first run).

    Raises:
        ImportError: librosa is not installed.
    """
    from librosa.filters import mel
    from scipy.signal import get_window

    padded = np.pad(np.asarray(audio, np.float32), N_FFT // 2)
    frames = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP]
    power = np.abs(np.fft.rfft(frames * get_window("hann", N_FFT, fftbins=True).astype(np.float32), axis=1)) ** 2
    return np.ascontiguousarray((power @ mel(sr=SAMPLE_RATE, n_fft=N_FFT, n_mels=N_MELS).T).astype(np.float32))


class GE2EEncoder:
    """The GE2E speaker encoder's forward pass (see the module doc): a torch module, run on the CPU by onnxruntime
    from an export kept in the model cache (``tools.perception.cpu_onnx``; torch is imported only to make it), on
    one intra-op thread whatever else runs (the speech pass shares the cores with the picture pass).

    ``encoder(mels)`` takes mel frames (N, T, 40) float32 (``mel_frames`` of N equally long windows, T >= 1)
    and returns (N, 256) float32 unit vectors as a numpy array on the CPU.

    Args:
        weights: a torch checkpoint as Resemblyzer saved it (``{"model_state": state_dict, ...}``) or a bare
            state dict, holding ``lstm.{weight_ih,weight_hh,bias_ih,bias_hh}_l{0,1,2}`` and
            ``linear.{weight,bias}``; the GE2E loss's ``similarity_weight`` / ``similarity_bias`` are not part
            of the encoder and are left out. Read with ``torch.load(weights_only=True)``: tensors only, no
            code runs. Default: Resemblyzer's ``pretrained.pt``, fetched (``GE2E_MODEL``).
        device: ``"cpu"`` or ``"cuda"`` (``"cuda:1"``, ...); on a GPU torch runs the encoder.

    Raises:
        FileNotFoundError: ``weights`` does not exist, or it is None and Resemblyzer's file is not fetched
            (the message names the command).
        ValueError: the file is not such a checkpoint (not a torch file, or an encoder tensor missing, extra
            or of another shape), or ``device`` is CUDA and torch sees no CUDA device. Checked when the export is
            made: an export of the same file (same SHA-256) in the model cache was made from weights that passed.
        OSError: the export to onnxruntime failed.
    """

    def __init__(self, weights: str | os.PathLike | None = None, device: str = "cpu") -> None:
        from tools.core.fetch import default_file

        path = default_file(GE2E_MODEL, GE2E_FILE) if weights is None else Path(weights)
        if not path.is_file():
            raise FileNotFoundError(f"GE2E voice encoder weights not found: {path}")
        self._path = path
        self._onnx = CpuOnnx(self._network, (2, 160, N_MELS), ("embedding",), name="ge2e", source=__file__,
                             weights_sha256=file_sha256(path), device=device, input_axes=(0, 1), threads=1)
        self._onnx.load()

    def _network(self, device):
        """The encoder as a ``torch.nn.Module`` on ``device``: (N, T, 40) mel frames -> (N, 256) unit vectors.

        Raises:
            ValueError: the file is not GE2E encoder weights (see the class doc).
        """
        import torch
        import torch.nn.functional as F

        path = self._path
        try:
            checkpoint = torch.load(path, map_location="cpu", weights_only=True)
        except (RuntimeError, OSError, EOFError, pickle.UnpicklingError) as exc:
            raise ValueError(f"{path}: not a torch checkpoint ({str(exc).splitlines()[0]})") from exc
        state = checkpoint.get("model_state", checkpoint) if isinstance(checkpoint, dict) else None
        if not isinstance(state, dict):
            raise ValueError(f"{path}: not GE2E encoder weights (no state dict)")  # noqa: TRY004  (a bad file, not a bad call)
        tensors = {k: v for k, v in state.items() if k not in ("similarity_weight", "similarity_bias")}

        class Encoder(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.lstm = torch.nn.LSTM(N_MELS, HIDDEN, num_layers=LAYERS, batch_first=True)
                self.linear = torch.nn.Linear(HIDDEN, EMBEDDING)

            def forward(self, x):
                _, (hidden, _) = self.lstm(x)  # hidden: (layers, N, 256); the last layer's state at the last frame
                return F.normalize(torch.relu(self.linear(hidden[-1])), dim=1)

        encoder = Encoder()
        extra = [k for k in tensors if not k.startswith(("lstm.", "linear."))]
        if extra:
            raise ValueError(f"{path}: not GE2E encoder weights (unexpected tensors {extra})")
        try:
            encoder.load_state_dict({k: torch.as_tensor(v, dtype=torch.float32) for k, v in tensors.items()},
                                    strict=True)
        except RuntimeError as exc:
            raise ValueError(f"{path}: not GE2E encoder weights ({exc})") from exc
        return encoder.to(device).eval()

    def __call__(self, mels: np.ndarray, engine: str = "auto") -> np.ndarray:
        """(N, 256) float32 unit vectors for mel frames (N, T, 40). ``engine``: ``auto`` (onnxruntime on the CPU,
        torch on a GPU) or ``torch``."""
        return self._onnx(np.ascontiguousarray(mels, np.float32), engine)[0]


class GE2EVoiceIdentity:
    """The GE2E encoder (see the module doc) over windows of one recording.

    Windows of equal length run as one batch (at most ``ENCODER_BATCH`` a batch), batches on up to
    ``ENCODER_WORKERS`` threads side by side (the same vectors as one after another); the mel spectrogram is computed
    once per stretch of about ``MEL_CHUNK_S`` seconds (frames inside a stretch equal those of the whole
    signal's spectrogram). ``embed`` returns (N, 256) float32 unit vectors; a window shorter than 2 frames
    (20 ms) gets a zero vector.

    Args:
        device: torch device of the encoder, ``"cpu"`` (default) or ``"cuda"``.
        weights: the encoder's torch checkpoint (default: Resemblyzer's, fetched; see ``GE2EEncoder``).

    Raises:
        BackendUnavailableError: librosa (the mel front end) is not installed.
        FileNotFoundError, ValueError: see ``GE2EEncoder``.
    """

    def __init__(self, device: str = "cpu", weights: str | os.PathLike | None = None) -> None:
        try:
            import librosa.filters  # noqa: F401  (the front end's mel bands; imported here so a missing one fails at load)
        except ImportError as exc:
            raise BackendUnavailableError("voice identity backend 'ge2e' needs librosa (pip install librosa)") from exc
        self._encoder = GE2EEncoder(weights, device)
        # the embeddings are Resemblyzer's (same weights, same front end): the name caches are keyed on is kept
        self.name = "resemblyzer-ge2e"

    def embed(self, audio: np.ndarray, windows: list[tuple[float, float]]) -> np.ndarray:
        out = np.zeros((len(windows), EMBEDDING), np.float32)
        workers = max(1, min(ENCODER_WORKERS, cpu_budget()))
        with ThreadPoolExecutor(workers, thread_name_prefix="ge2e") as pool:
            pending: list[tuple[list[int], Future]] = []  # at most two batches a thread made ahead of their vectors
            for rows, mels in self._batches(np.asarray(audio, np.float32), windows):
                pending.append((rows, pool.submit(self._encoder, mels)))
                while len(pending) > 2 * workers:
                    done_rows, future = pending.pop(0)
                    out[done_rows] = future.result()
            for done_rows, future in pending:
                out[done_rows] = future.result()
        return out

    @staticmethod
    def _batches(audio: np.ndarray, windows: list[tuple[float, float]]) -> Iterator[tuple[list[int], np.ndarray]]:
        """``(rows, mels)``: indices into ``windows`` and their mel frames (len(rows), T, 40), windows of equal
        length T >= 2 frames together (at most ``ENCODER_BATCH``), in the order of the windows' starts."""
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
                for k in range(0, len(rows), ENCODER_BATCH):
                    batch = rows[k:k + ENCODER_BATCH]
                    yield batch, np.stack([mel[spans[i][0]:spans[i][0] + n] for i in batch])


VOICE_IDENTITIES: Registry[VoiceIdentity] = Registry("voice identity")


@VOICE_IDENTITIES.register("ge2e", needs=(GE2E_MODEL,))
def _load_ge2e(device: str = "cpu", weights: str | None = None) -> VoiceIdentity:
    return GE2EVoiceIdentity(device=device, weights=weights)


def load_voice_identity(name: str = "ge2e", **opts: object) -> VoiceIdentity:
    """Return the cached voice identity backend ``name`` (see ``VOICE_IDENTITIES.names()``); ``opts``
    go to its loader (``ge2e``: ``device="cpu"|"cuda"``, ``weights=PATH``)."""
    return VOICE_IDENTITIES.load(name, **opts)
