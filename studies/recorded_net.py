"""Does faceres learn the recorded look when recorded faces join its training? CREMA-D, cross-validated by actor.

    python -m studies.recorded_net export --data DIR --cremad CLIPS --mirrors /work/.mirror   # here: DIR/recorded.npz
    python -m studies.recorded_net train --data DIR --out OUT [--procs 7]                    # on a GPU machine
    python -m studies.recorded_net score --data DIR --runs OUT... --previous WEIGHTS [--json FILE]
    python -m studies.recorded_net pack --runs OUT...                                         # tools/models/faceres.npz

Section 45 of ``evals/RESULTS.md`` found that a linear head on frozen FER2013 features cannot learn CREMA-D's
low-intensity acted performances. This study trains the whole network (``studies.train_face_net``) with them.

``export`` adds to ``DIR/faces.npz`` (``python -m studies.train_face_net export --out DIR``) the recorded development
faces, read as section 45 reads them (the largest MediaPipe face of each frame at 8 fps,
``studies.recorded_heads.clip_crops``): ``cremad``, the 100 CREMA-D clips of 64 actors, with a fold per clip (5 folds
grouped by actor, ``sklearn.model_selection.GroupKFold``); and, never trained on, ``sec25`` (the 20 clips of
``studies.recorded_faces.CLIPS``), ``ravdess05`` (RAVDESS actor 05's 52) and ``mafw`` (MAFW's 12 film samples). Each
set keeps face8's reading of every crop, for the default reader (the mean of faceres and face8).

It also keeps, for the FER2013 faces, FER+'s label distributions (``evals.data.ferplus``: ten taggers per face,
contempt among the labels), for the runs that train on them.

``train`` fits each job of ``JOBS`` from scratch with the previous recipe (configuration ``plain``, ``EPOCHS``), each
run of ``RUNS`` in two forms of FER2013's labels (its own, or FER+'s distributions where a face was matched):
``base`` / ``ferplus`` and their second seeds on the still faces alone (how far two trainings of one recipe differ);
``cremad4`` / ``ferplus_cremad4`` on the still faces plus the CREMA-D frames at 4 times their class weight, once per
fold (reading the held-out actors' frames) and once on every actor (``all``: the model that would ship, read on the
other sets). It writes ``OUT/runs.npz`` (every job's readings) and ``OUT/faceres_<run>.npz`` (the ``all`` weights).

Section 62: ``export --only javanese`` adds the Javanese development people's clips (``evals.data.javanese``, 120 clips
of 5 people; fold k = the k-th person) to an existing ``recorded.npz``; the runs of ``JAVANESE_WEIGHT`` also train on
their frames, each fold leaving out CREMA-D's fold k and Javanese person k, and ``score --previous-cv`` judges their
mean (``JAVANESE_ENSEMBLE``) against the shipped weights by the candidate rule of ``score``. Runs trained before it
hold no Javanese readings; ``score`` reads each run on the sets it has.

``score`` counts the clips right (a clip's reading is the mean over its frames) for faceres alone and the default form,
with bootstrap 95 % intervals over people, and applies the rule fixed before training: a run is better than the
previous recipe when its clips right over the four sets (CREMA-D by its cross-validation) exceed both base seeds'.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: Training passes over the data of every job (the previous faceres took 50; every run here takes the same).
EPOCHS = 30
FOLDS = 5
#: Runs: name -> (seed, FER2013's labels: its own or FER+'s, weight of a CREMA-D frame against a still face of the
#: same label; 0 = none).
RUNS = {"base": (0, "fer2013", 0.0), "base1": (1, "fer2013", 0.0), "ferplus": (0, "ferplus", 0.0),
        "ferplus1": (1, "ferplus", 0.0), "cremad4": (0, "fer2013", 4.0), "ferplus_cremad4": (0, "ferplus", 4.0),
        "cremad4_1": (1, "fer2013", 4.0), "cremad16": (0, "fer2013", 16.0),
        "cremad4_jav4": (0, "fer2013", 4.0), "cremad4_jav4_1": (1, "fer2013", 4.0)}
#: Runs that also train on the Javanese development people's frames, at this weight (fold k leaves out CREMA-D's
#: fold k and the k-th Javanese development person, so one job gives both sets' held-out readings).
JAVANESE_WEIGHT = {"cremad4_jav4": 4.0, "cremad4_jav4_1": 4.0}
#: Jobs in the order they start: (run, fold or "all").
JOBS = [*[(r, f) for r in ("cremad4", "ferplus_cremad4", "cremad4_1", "cremad16", "cremad4_jav4", "cremad4_jav4_1")
           for f in ("all", *range(FOLDS))],
        ("base", "all"), ("ferplus", "all"), ("base1", "all"), ("ferplus1", "all")]
SETS = ("cremad", "sec25", "ravdess05", "mafw", "javanese")
#: Sets read by cross-validation when a run trains on them (the others are never trained on).
TRAINED = ("cremad", "javanese")
#: The runs averaged into the shipped reader (module doc: ``pack``).
ENSEMBLE = ("cremad4", "cremad4_1")
#: The same recipe with the Javanese development people's frames too: the candidate of section 62's rule (``score``).
JAVANESE_ENSEMBLE = ("cremad4_jav4", "cremad4_jav4_1")
#: Most clips the four sets other than the Javanese may lose, against the previous reader, for the candidate to pass.
MAX_LOSS_ELSEWHERE = 2


def _set_clips(name: str, cremad: Path, mirrors: Path, tmp: Path) -> tuple[list[Path], list[tuple[str, str, str, str]]]:
    """Set ``name``'s clip files (the other sets' written under ``tmp`` from their snapshots under ``mirrors``) and their
    rows in the form of ``studies.recorded_faces.CLIPS``."""
    from evals.data.javanese import rows as javanese_rows
    from studies import recorded_faces as rf

    if name == "cremad":
        return rf.cremad_clips(cremad)
    rows = {"sec25": lambda: rf.CLIPS, "ravdess05": rf.ravdess05_rows, "mafw": rf.mafw_rows,
            "javanese": lambda: javanese_rows(mirrors, "dev")}[name]()
    return rf._extract(mirrors, tmp, rows), rows


def export(data: Path, cremad: Path | None, mirrors: Path, only: list[str] | None = None) -> Path:
    """Write ``data/recorded.npz`` (module doc); with ``only``, (re)write just those sets' arrays in the existing file.
    Returns its path."""
    from sklearn.model_selection import GroupKFold

    from evals.data.assemble import default_root, load_manifest
    from evals.data.ferplus import soft_labels
    from studies.recorded_heads import clip_crops
    from studies.train_face_net import _encode
    from tools.core.schema import AFFECTNET8
    from tools.perception.expression import Face8

    face8, out, data_root = Face8(), {}, default_root()
    if only:
        with np.load(data / "recorded.npz") as f:
            out = {k: f[k] for k in f.files}
    for name in only or SETS:
        with tempfile.TemporaryDirectory() as tmp:
            paths, rows = _set_clips(name, cremad, mirrors, Path(tmp))
            x, clip = clip_crops(paths)
        out[f"{name}_blob"], out[f"{name}_offsets"] = _encode(x)
        out[f"{name}_clip"], out[f"{name}_face8"] = clip, face8.classify_crops(x)
        out[f"{name}_label"] = np.asarray([lab for _, _, lab, _ in rows])
        out[f"{name}_person"] = np.asarray([who for *_, who in rows])
        print(f"{name}: {len(rows)} clips, {len(x)} frames with a face", flush=True)
    people = list(dict.fromkeys(out["javanese_person"]))  # one fold per Javanese development person
    out["javanese_fold"] = np.asarray([people.index(w) for w in out["javanese_person"]])
    out["javanese_y"] = np.asarray([AFFECTNET8.index(lab) for lab in out["javanese_label"]])
    if only:
        np.savez(data / "recorded.npz", **out)
        return data / "recorded.npz"
    fold = np.zeros(len(out["cremad_label"]), int)
    for k, (_, held) in enumerate(GroupKFold(n_splits=FOLDS).split(fold, groups=out["cremad_person"])):
        fold[held] = k
    out["cremad_fold"] = fold
    with np.load(data_root / "ferplus.npz") as fp:
        soft, keep = soft_labels(fp["votes"], fp["unknown"], fp["not_face"])
        matched = fp["matched"]
    dev = np.asarray([r["split"] == "dev" for r in load_manifest(data_root, "fer2013")])
    out["ferplus_soft"], out["ferplus_use"] = soft[dev], (keep & matched)[dev]
    out["cremad_y"] = np.asarray([AFFECTNET8.index(lab) for lab in out["cremad_label"]])
    np.savez(data / "recorded.npz", **out)
    return data / "recorded.npz"


def _job(data: Path, out: Path, run: str, fold: int | str, device: str) -> tuple[str, dict]:
    """Fit one job (module doc) and return its key and readings (frames, 8): for a fold, those of ``TRAINED``'s held-out
    frames (CREMA-D's fold and the Javanese person of that number); for ``all``, every set's frames and the still-face
    validation. Needs a ``recorded.npz`` with the Javanese set (``export``, or ``export --only javanese``)."""
    from studies import train_face_net as tf

    stills = tf.load_faces(data)
    with np.load(data / "recorded.npz") as f:
        rec = {k: f[k] for k in f.files}
    sets = {s: tf._decode(rec[f"{s}_blob"], rec[f"{s}_offsets"]) for s in SETS}
    seed, labels, weight = RUNS[run]
    y = np.eye(tf.N_LABELS)[stills["y"]]
    if labels == "ferplus":
        fer = np.flatnonzero(stills["source"] == tf.SOURCES.index("fer2013"))
        y[fer[rec["ferplus_use"]]] = rec["ferplus_soft"][rec["ferplus_use"]]
    keep = ~stills["val"]
    x, y = stills["x"][keep], y[keep]
    factor = tf.source_factor(stills["source"][keep])
    frame_fold = {s: rec[f"{s}_fold"][rec[f"{s}_clip"]] for s in TRAINED}
    read = {}
    for s, wt in (("cremad", weight), ("javanese", JAVANESE_WEIGHT.get(run, 0.0))):
        if wt:
            add = frame_fold[s] != fold
            x = np.concatenate([x, sets[s][add]])
            y = np.concatenate([y, np.eye(tf.N_LABELS)[rec[f"{s}_y"][rec[f"{s}_clip"]][add]]])
            factor = np.concatenate([factor, np.full(int(add.sum()), wt)])
    w = tf.class_weights(y.argmax(1)) * factor
    t0 = time.time()
    net = tf.fit(x, y, w, "plain", EPOCHS, seed, device)
    net.eval()
    if fold != "all":
        read = {s: tf._predict(net, sets[s][frame_fold[s] == fold], device) for s in TRAINED}
    else:
        read.update({s: tf._predict(net, sets[s], device) for s in SETS})
        read.update({k: np.asarray(v) for k, v in tf.validate(net, stills, device).items()})
        tf.save_state(net, out / f"faceres_{run}.npz")
    print(f"{run} {fold}: {len(y)} faces, {time.time() - t0:.0f} s", flush=True)
    return f"{run}_{fold}", read


def train(data: Path, out: Path, procs: int, device: str = "cuda", runs: list[str] | None = None) -> Path:
    """Run the jobs of ``JOBS`` (of the ``runs`` named, default all) in ``procs`` processes; ``out/runs.npz`` is rewritten as each job ends, so a run
    stopped early keeps what finished. Returns its path."""
    from concurrent.futures import as_completed

    from tools.core.runtime import process_pool

    out.mkdir(parents=True, exist_ok=True)
    flat: dict[str, np.ndarray] = {}
    with process_pool(procs) as ex:
        for done in as_completed([ex.submit(_job, data, out, run, fold, device) for run, fold in JOBS
                                  if runs is None or run in runs]):
            key, read = done.result()
            flat.update({f"{key}/{k}": v for k, v in read.items()})
            np.savez_compressed(out / "runs.tmp.npz", **flat)
            (out / "runs.tmp.npz").replace(out / "runs.npz")
    return out / "runs.npz"


def _clip_readings(frames: np.ndarray, clip: np.ndarray, n: int) -> list[np.ndarray | None]:
    """The mean reading (8,) of each of ``n`` clips over its rows of ``frames`` (rows, 8); None for a clip without."""
    return [frames[clip == i].mean(0) if (clip == i).any() else None for i in range(n)]


def score(data: Path, runs: list[Path], previous: Path, previous_cv: Path | None = None) -> dict:
    """Clips right per run, set and reader form, with intervals, and the rule's verdict (module doc); ``previous``:
    the faceres weights the runs are compared with (``previous`` in the result). ``previous_cv``: an earlier result
    of this command whose ``ENSEMBLE`` row holds the previous weights' cross-validated readings of the sets they were
    trained on; they replace ``previous``'s direct readings of those sets, and the candidate (``JAVANESE_ENSEMBLE``)
    is judged against them: more clips right over every set, and at most ``MAX_LOSS_ELSEWHERE`` fewer over the sets
    other than the Javanese."""
    from studies.recorded_faces import score_clips
    from studies.train_face_net import _decode
    from tools.core.schema import AFFECTNET8
    from tools.perception.face_resnet import FaceRes

    with np.load(data / "recorded.npz") as f:
        rec = {k: f[k] for k in f.files}
    got: dict[str, np.ndarray] = {}
    for folder in runs:
        with np.load(folder / "runs.npz") as f:
            got.update({k: f[k] for k in f.files})
    frame_fold = {s: rec[f"{s}_fold"][rec[f"{s}_clip"]] for s in TRAINED}
    before = FaceRes(previous)
    readings: dict[str, dict[str, np.ndarray]] = {"previous": {
        s: before.classify_crops(_decode(rec[f"{s}_blob"], rec[f"{s}_offsets"])) for s in SETS}}
    for run, (_, _, weight) in RUNS.items():
        if f"{run}_all/cremad" not in got:
            continue
        readings[run] = {s: got[f"{run}_all/{s}"] for s in SETS if f"{run}_all/{s}" in got}  # runs before
        for s, wt in (("cremad", weight), ("javanese", JAVANESE_WEIGHT.get(run, 0.0))):    # section 62 lack javanese
            if wt and s in readings[run]:
                cv = np.zeros_like(readings[run][s])
                for k in range(FOLDS):
                    cv[frame_fold[s] == k] = got[f"{run}_{k}/{s}"]
                readings[run][s] = cv
    for names in (ENSEMBLE, JAVANESE_ENSEMBLE):
        if all(r in readings for r in names):
            readings["+".join(names)] = {s: np.mean([readings[r][s] for r in names], axis=0) for s in SETS
                                         if all(s in readings[r] for r in names)}
    result: dict = {"epochs": EPOCHS, "runs": {}}
    for run, sets in readings.items():
        row: dict = {"total": {}}
        if run in RUNS:
            row["still_validation"] = {k.split("/")[1]: round(float(v), 4) for k, v in got.items()
                                       if k.startswith(f"{run}_all/val_")}
        for form in ("faceres", "faceres+face8"):
            row[form] = {}
            for s in sets:
                frames = sets[s] if form == "faceres" else (sets[s] + rec[f"{s}_face8"]) / 2
                pooled = _clip_readings(frames, rec[f"{s}_clip"], len(rec[f"{s}_label"]))
                rows = [("", "", str(lab), str(who)) for lab, who in zip(rec[f"{s}_label"], rec[f"{s}_person"])]
                row[form][s] = score_clips([None if p is None else AFFECTNET8[int(p.argmax())] for p in pooled], rows)
            row["total"][form] = sum(row[form][s]["right"] for s in sets)
        result["runs"][run] = row
        print(run, row["total"], {s: row["faceres+face8"][s]["right"] for s in sets}, flush=True)
    if previous_cv is not None:
        _previous_cv(result, previous_cv)
    _paired(result, rec)
    if all(r in result["runs"] for r in ("base", "base1")):
        base = max(result["runs"][r]["total"]["faceres+face8"] for r in ("base", "base1"))
        result["rule"] = "clips right over the four sets (CREMA-D by actor-grouped CV), default form, above both base seeds"
        result["better_than_base"] = [r for r in result["runs"] if r not in ("previous", "base", "base1")
                                      and result["runs"][r]["total"]["faceres+face8"] > base]
    candidate = "+".join(JAVANESE_ENSEMBLE)
    if previous_cv is not None and candidate in result["runs"]:
        def right(run: str, sets: tuple[str, ...]) -> int:
            return sum(result["runs"][run]["faceres+face8"][s]["right"] for s in sets)

        others = tuple(s for s in SETS if s != "javanese")
        result["candidate_rule"] = (f"{candidate} (default form; CREMA-D and the Javanese by person-grouped CV) against "
                                    f"the previous reader: more clips right over {list(SETS)}, and at most "
                                    f"{MAX_LOSS_ELSEWHERE} fewer over {list(others)}")
        result["candidate_passes"] = bool(right(candidate, SETS) > right("previous", SETS)
                                          and right(candidate, others) >= right("previous", others) - MAX_LOSS_ELSEWHERE)
    return result


def _previous_cv(result: dict, path: Path) -> None:
    """Replace the ``previous`` row's readings of the sets in ``path``'s ``ENSEMBLE`` row (an earlier result of
    ``score``: the previous weights' cross-validated readings there) and its totals."""
    import json

    earlier = json.loads(path.read_text())["runs"]["+".join(ENSEMBLE)]
    row = result["runs"]["previous"]
    for form in ("faceres", "faceres+face8"):
        for s in TRAINED:
            if s in earlier[form]:
                row[form][s] = earlier[form][s]
        row["total"][form] = sum(row[form][s]["right"] for s in row[form])


def _paired(result: dict, rec: dict) -> None:
    """Add to each run, per set, the default form's clips right minus the previous reader's: the mean difference per
    clip with a bootstrap 95 % interval over people (``evals.metrics.bootstrap_interval``), as ``vs_previous``."""
    from evals.metrics import bootstrap_interval

    for run, row in result["runs"].items():
        row["vs_previous"] = {}
        for s in SETS:
            if s not in row["faceres+face8"] or s not in result["runs"]["previous"]["faceres+face8"]:
                continue
            labels = [str(lab).split("|") for lab in rec[f"{s}_label"]]

            def right(r: str, s: str = s, labels: list = labels) -> np.ndarray:
                pred = result["runs"][r]["faceres+face8"][s]["predicted"]
                return np.asarray([p is not None and p in lab for p, lab in zip(pred, labels, strict=True)], float)

            diff = right(run) - right("previous")
            lo, hi = bootstrap_interval(diff, groups=[str(w) for w in rec[f"{s}_person"]])
            row["vs_previous"][s] = {"mean": round(float(diff.mean()), 3), "ci95": [round(lo, 3), round(hi, 3)]}


def pack(runs: list[Path], names: tuple[str, ...], out: Path) -> Path:
    """Write the ``all`` weights of runs ``names`` (``faceres_<name>.npz`` in any folder of ``runs``) as one file of
    several networks, keys prefixed ``m0.``, ``m1.``, ... (the form ``tools.perception.face_resnet.FaceRes`` averages).

    Raises:
        FileNotFoundError: a run's weights are in none of ``runs``.
    """
    arrays = {}
    for k, name in enumerate(names):
        found = [d / f"faceres_{name}.npz" for d in runs if (d / f"faceres_{name}.npz").is_file()]
        if not found:
            raise FileNotFoundError(f"faceres_{name}.npz in none of {[str(d) for d in runs]}")
        with np.load(found[0]) as f:
            arrays.update({f"m{k}.{key}": f[key] for key in f.files})
    np.savez_compressed(out, **arrays)
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.recorded_net", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write DIR/recorded.npz beside DIR/faces.npz")
    e.add_argument("--data", type=Path, required=True)
    e.add_argument("--cremad", type=Path, default=None, help="folder of the CREMA-D clips (python -m evals.data.cremad)")
    e.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git snapshots")
    e.add_argument("--only", action="append", choices=["javanese"],
                   help="add or rewrite only this set in the existing file (the Javanese development people, section 62)")
    t = sub.add_parser("train", help="fit every job (a GPU helps)")
    t.add_argument("--data", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--procs", type=int, default=7)
    t.add_argument("--device", default="cuda")
    t.add_argument("--run", action="append", choices=sorted(RUNS), help="only this run's jobs (repeatable)")
    c = sub.add_parser("score", help="score the runs against the previous reader")
    c.add_argument("--data", type=Path, required=True)
    c.add_argument("--runs", type=Path, nargs="+", required=True, help="train's output folders (merged)")
    c.add_argument("--previous", type=Path, required=True,
                   help="faceres weights to compare with (the previous ones: git show ea2d61e:tools/models/faceres.npz)")
    c.add_argument("--previous-cv", type=Path, default=None,
                   help="an earlier score result holding the previous weights' cross-validated readings "
                        "(evals/results/recorded_net_dev.json)")
    c.add_argument("--json", type=Path, default=None)
    k = sub.add_parser("pack", help="write the ensemble's weights as one file (default tools/models/faceres.npz)")
    k.add_argument("--runs", type=Path, nargs="+", required=True)
    k.add_argument("--out", type=Path, default=Path("tools/models/faceres.npz"))
    a = ap.parse_args(argv)
    if a.cmd == "pack":
        print(pack(a.runs, ENSEMBLE, a.out))
    elif a.cmd == "export":
        if not a.only and a.cremad is None:
            ap.error("export needs --cremad unless --only names the sets to write")
        print(export(a.data, a.cremad, a.mirrors, a.only))
    elif a.cmd == "train":
        print(train(a.data, a.out, a.procs, a.device, a.run))
    else:
        return report(lambda: score(a.data, a.runs, a.previous, a.previous_cv), a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
