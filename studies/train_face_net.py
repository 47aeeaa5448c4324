"""Train faceres (``tools.perception.face_resnet``), the end-to-end AffectNet-8 face reader, with video-like augmentation.

    python -m studies.train_face_net export --out DIR [--mirrors /work/.mirror]     # here: the dev data
    python -m studies.train_face_net train --data DIR --out DIR --config video      # on a GPU machine
    python -m studies.train_face_net pick --runs DIR... [--weights tools/models/faceres.npz]

``export`` writes ``DIR/faces.npz``: every dev face of CK+ (subjects not divisible by 3), RAF-DB (its train
part) and FER2013 (its Training and PublicTest parts), cropped as the pipeline crops them
(``studies.faces.face_crops``), shrunk to 48x48 and WebP-encoded (quality 90) so that the set travels small,
with the label, the source and the validation flag: CK+ dev subjects with number % 3 == 1, RAF-DB train
images in the fusion fold (``evals.data.assemble.in_fusion_fold``: CRC-32 % 10 == 0) and FER2013's PublicTest.
No test image is exported. With ``--mirrors`` it adds the recorded development clips of
``studies.recorded_faces`` (the largest face at 4 fps, cropped the same way), read only to compare the
configurations on recorded video.

``train`` needs only torch, numpy and OpenCV. It fits the network on the non-validation faces: SGD with
Nesterov momentum, one-cycle learning rate, label smoothing 0.1, class weights of inverse square-root
frequency, CK+ faces weighted 4x (few, posed, the only contempt); a batch is augmented on the GPU by the
configuration's steps (``CONFIGS``): geometry and light always; ``video`` adds what recording does to a face
(down-scaling to 14-40 px and back, Gaussian blur, block-DCT quantisation as in JPEG/H.264 intra coding at
quality 15-70, sensor noise); ``occlude`` adds random erasing (Zhong et al., 2020, AAAI) and a hidden lower
face. It writes ``faceres_<config>.npz`` (float16 state dict) and ``faceres_<config>.json`` (accuracy on
each validation part and on the recorded clips, per frame and per clip by the mean).

``pick`` chooses the configuration by the mean of the four validation figures (CK+, RAF-DB, FER2013, recorded
frames), a rule fixed before training, and copies its weights and log.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import shutil
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from studies.face_augment import Augment
from tools.perception.face_resnet import INPUT, N_LABELS, build_network

#: Augmentation steps of each configuration (module doc).
CONFIGS = {"plain": (), "video": ("video",), "occlude": ("video", "occlude")}
#: Weight of a CK+ face against an in-the-wild face.
CK_WEIGHT = 4.0
EPOCHS, BATCH, LR, WEIGHT_DECAY, SMOOTHING = 40, 256, 0.1, 5e-4, 0.1
SOURCES = ("ckplus", "rafdb", "fer2013")


def _encode(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """uint8 crops (N, 64, 64) -> (concatenated WebP bytes, offsets (N + 1,)) of their 48x48 versions."""
    import cv2

    blobs = [cv2.imencode(".webp", cv2.resize(c, (INPUT, INPUT), interpolation=cv2.INTER_AREA),
                          [cv2.IMWRITE_WEBP_QUALITY, 90])[1].tobytes() for c in crops]
    offsets = np.cumsum([0] + [len(b) for b in blobs])
    return np.frombuffer(b"".join(blobs), np.uint8), offsets


def _decode(blob: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The inverse of ``_encode``: uint8 (N, 48, 48)."""
    import cv2

    return np.stack([cv2.imdecode(blob[a:b], cv2.IMREAD_GRAYSCALE) for a, b in itertools.pairwise(offsets)])


def _recorded_crops(mirrors: Path) -> dict[str, np.ndarray]:
    """The largest face of each frame of the recorded dev clips at 4 fps: ``rx`` (M, 64, 64), ``rclip`` (M,),
    ``rlabel`` (clips,), ``rperson`` (clips,)."""
    import tempfile

    from studies.recorded_faces import CLIPS, READ_FPS, _extract
    from tools.core.frames import iter_frames
    from tools.core.schema import AFFECTNET8
    from tools.perception.crops import gray_crop
    from tools.perception.engine import PerceptionConfig, load_engine

    engine = load_engine(PerceptionConfig())
    crops, clip_of = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(_extract(mirrors, Path(tmp))):
            for t, frame in iter_frames(path, READ_FPS):
                faces = engine.observe_frame(t, frame, "f", hands=False).faces
                if faces:
                    crops.append(gray_crop(frame, max(faces, key=lambda f: f.box.area).box))
                    clip_of.append(i)
    return {"rx": np.stack(crops), "rclip": np.asarray(clip_of),
            "rlabel": np.asarray([AFFECTNET8.index(lab) for _, _, lab, _ in CLIPS]),
            "rperson": np.asarray([who for *_, who in CLIPS])}


def export(out: Path, mirrors: Path | None) -> Path:
    """Write ``out/faces.npz`` (module doc); returns its path."""
    from evals.data.assemble import default_root, load_manifest
    from studies.faces import face_crops

    parts: dict[str, list] = {"x": [], "y": [], "source": [], "val": []}
    for s, name in enumerate(SOURCES):
        d = face_crops(name)
        recs = load_manifest(default_root(), name)
        dev = d["split"] == "dev"
        if name == "ckplus":
            val = np.asarray([int(p[1:]) % 3 == 1 if p else False for p in d["person"]])
        elif name == "rafdb":
            val = np.asarray([zlib.crc32(Path(r["path"]).name.encode()) % 10 == 0 for r in recs])
        else:
            val = np.asarray([r.get("fold") == "val" for r in recs])
        parts["x"].append(d["x"][dev])
        parts["y"].append(d["y"][dev])
        parts["source"].append(np.full(int(dev.sum()), s))
        parts["val"].append(val[dev])
    data = {k: np.concatenate(v) for k, v in parts.items()}
    data["blob"], data["offsets"] = _encode(data.pop("x"))
    if mirrors is not None:
        rec = _recorded_crops(mirrors)
        data["rblob"], data["roffsets"] = _encode(rec.pop("rx"))
        data.update(rec)
    out.mkdir(parents=True, exist_ok=True)
    np.savez(out / "faces.npz", **data)
    return out / "faces.npz"


# ---- training (torch, numpy and OpenCV only) ----

def _predict(net, x, device) -> np.ndarray:
    """Mean of crop and mirror probabilities (N, 8) for uint8 (N, 48, 48)."""
    import torch

    out = []
    with torch.inference_mode():
        for i in range(0, len(x), 2048):
            t = (torch.from_numpy(x[i:i + 2048]).to(device).float()[:, None] / 255 - 0.5) * 2
            p = torch.softmax(net(t), 1) + torch.softmax(net(torch.flip(t, dims=[3])), 1)
            out.append((p / 2).float().cpu().numpy())
    return np.concatenate(out)


def validate(net, data: dict, device) -> dict:
    """Accuracy on each source's validation faces and on the recorded clips (per frame; per clip by the mean)."""
    net.eval()
    res = {}
    for s, name in enumerate(SOURCES):
        m = data["val"] & (data["source"] == s)
        if not m.any():
            continue
        res[f"val_{name}"] = round(float((_predict(net, data["x"][m], device).argmax(1) == data["y"][m]).mean()), 4)
    if "rx" in data:
        p = _predict(net, data["rx"], device)
        res["recorded_frames"] = round(float((p.argmax(1) == data["rlabel"][data["rclip"]]).mean()), 4)
        clip_pred = [int(p[data["rclip"] == i].mean(0).argmax()) for i in range(len(data["rlabel"]))]
        res["recorded_clips_right"] = int(sum(a == b for a, b in zip(clip_pred, data["rlabel"])))
        res["recorded_clips"] = len(clip_pred)
    net.train()
    return res


def class_weights(y: np.ndarray) -> np.ndarray:
    """Per-face weights (N,) of inverse square-root label frequency for AffectNet-8 labels ``y`` (N,)."""
    counts = np.bincount(y, minlength=N_LABELS).astype(np.float64)
    return np.where(counts > 0, 1 / np.sqrt(np.maximum(counts, 1)), 0)[y]


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, config: str, epochs: int = EPOCHS, seed: int = 0,
        device: str = "cuda", on_epoch: Callable[[int, float, Any], None] | None = None):
    """Fit a fresh faceres network on uint8 faces ``x`` (N, 48, 48) with AffectNet-8 labels ``y``, (N,) indices or (N, 8)
    label distributions, and per-face weights ``w`` (N,) (module doc: SGD, one-cycle rate, label smoothing, configuration ``config``'s augmentation).
    ``on_epoch(epoch, loss, net)`` is called after every tenth epoch and the last. Returns the network, on ``device``."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    w = torch.tensor(w / w.mean(), dtype=torch.float32, device=device)
    x = torch.from_numpy(x).to(device)
    yt = torch.from_numpy(y).to(device)
    yt = yt.long() if yt.ndim == 1 else yt.float()
    net = build_network().to(device).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=0.9, nesterov=True, weight_decay=WEIGHT_DECAY)
    steps = epochs * math.ceil(len(y) / BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=steps, pct_start=0.15)
    aug = Augment(CONFIGS[config], device, seed)
    for epoch in range(epochs):
        order = torch.randperm(len(y), device=device)
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            xb = aug(x[idx].float()[:, None] / 255).contiguous(memory_format=torch.channels_last)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=str(device).startswith("cuda")):
                logits = net(xb)
            loss = (F.cross_entropy(logits.float(), yt[idx], reduction="none", label_smoothing=SMOOTHING) * w[idx]).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
        if on_epoch is not None and (epoch % 10 == 9 or epoch == epochs - 1):
            on_epoch(epoch + 1, float(loss.detach()), net)
    return net


def save_state(net, path: Path) -> None:
    """Write ``net``'s state dict to ``path`` (npz, floating tensors as float16), the form ``FaceRes`` loads."""
    state = {k: v.detach().float().cpu().numpy().astype(np.float16 if v.dtype.is_floating_point else v.cpu().numpy().dtype)
             for k, v in net.state_dict().items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **state)


def load_faces(data_dir: Path) -> dict:
    """``data_dir/faces.npz`` (``export``) decoded: ``x`` (N, 48, 48) uint8, ``y``, ``source``, ``val``, and the
    recorded crops ``rx``, ``rclip``, ``rlabel`` when it has them."""
    with np.load(data_dir / "faces.npz") as f:
        raw = {k: f[k] for k in f.files}
    data = {"x": _decode(raw["blob"], raw["offsets"]), "y": raw["y"], "source": raw["source"], "val": raw["val"]}
    if "rblob" in raw:
        data.update(rx=_decode(raw["rblob"], raw["roffsets"]), rclip=raw["rclip"], rlabel=raw["rlabel"])
    return data


def source_factor(source: np.ndarray) -> np.ndarray:
    """Each still face's weight factor (N,) by its ``source`` index (N,) into ``SOURCES``: ``CK_WEIGHT`` for CK+, 1 else."""
    return np.where(source == SOURCES.index("ckplus"), CK_WEIGHT, 1.0)


def train(data_dir: Path, out: Path, config: str, epochs: int = EPOCHS, seed: int = 0, device: str = "cuda") -> dict:
    """Fit one configuration (module doc); writes ``out/faceres_<config>.{npz,json}`` and returns the log."""
    data = load_faces(data_dir)
    fit_mask = ~data["val"]
    log: dict = {"config": config, "steps": list(CONFIGS[config]), "epochs": epochs, "seed": seed,
                 "n_fit": int(fit_mask.sum()), "history": []}
    t0 = time.time()

    def record(epoch: int, loss: float, net) -> None:
        log["history"].append({"epoch": epoch, "loss": round(loss, 4), "s": round(time.time() - t0, 1),
                               **validate(net, data, device)})
        print(json.dumps(log["history"][-1]), flush=True)

    w = class_weights(data["y"][fit_mask]) * source_factor(data["source"][fit_mask])
    net = fit(data["x"][fit_mask], data["y"][fit_mask], w, config, epochs, seed, device, record)
    log["final"] = log["history"][-1]
    save_state(net, out / f"faceres_{config}.npz")
    (out / f"faceres_{config}.json").write_text(json.dumps(log, indent=1) + "\n")
    return log


def selection_score(final: dict) -> float:
    """The pre-set rule: the mean of the three validation accuracies and the recorded per-frame accuracy."""
    return float(np.mean([final[f"val_{s}"] for s in SOURCES] + [final["recorded_frames"]]))


def pick(runs: list[Path], weights: Path) -> str:
    """Copy the best run's weights to ``weights`` and a log of every run's figures and score beside it
    (``<weights stem>.train.json``); returns the chosen run as ``<folder>/<config>``."""
    logs = [(p, json.loads(p.read_text())) for d in runs for p in sorted(d.glob("faceres_*.json"))]
    if not logs:
        raise FileNotFoundError("no faceres_*.json in the runs given")
    best_path, best = max(logs, key=lambda pl: selection_score(pl[1]["final"]))
    shutil.copyfile(best_path.with_suffix(".npz"), weights)

    def name(path: Path, log: dict) -> str:
        return f"{path.parent.name}/{log['config']}-{log['epochs']}"

    summary = {"rule": "mean of val_ckplus, val_rafdb, val_fer2013 and recorded_frames",
               "runs": {name(p, g): {"score": round(selection_score(g["final"]), 4), **g["final"]} for p, g in logs},
               "chosen": name(best_path, best), "log": best}
    weights.with_name(weights.stem + ".train.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary["chosen"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.train_face_net", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write the dev faces (and recorded dev crops) to DIR/faces.npz")
    e.add_argument("--out", type=Path, required=True)
    e.add_argument("--mirrors", type=Path, default=None, help="folder of <owner>+<name>/repo git snapshots")
    t = sub.add_parser("train", help="fit one configuration (a GPU helps)")
    t.add_argument("--data", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--config", choices=sorted(CONFIGS), required=True)
    t.add_argument("--epochs", type=int, default=EPOCHS)
    t.add_argument("--device", default="cuda")
    p = sub.add_parser("pick", help="copy the configuration the pre-set rule chooses")
    p.add_argument("--runs", type=Path, nargs="+", required=True)
    p.add_argument("--weights", type=Path, default=Path("tools/models/faceres.npz"))
    a = ap.parse_args(argv)
    if a.cmd == "export":
        print(export(a.out, a.mirrors))
    elif a.cmd == "train":
        train(a.data, a.out, a.config, a.epochs, device=a.device)
    else:
        print(pick(a.runs, a.weights))
    return 0


if __name__ == "__main__":
    sys.exit(main())
