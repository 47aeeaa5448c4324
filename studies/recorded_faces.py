"""Facial expression over recorded video clips: how a clip's frame readings are pooled into one emotion.

    python -m studies.recorded_faces --mirrors /work/.mirror [--json evals/results/recorded_faces_dev.json]
    python -m studies.recorded_faces --cremad DIR [--json evals/results/recorded_faces_cremad_test.json]
    python -m studies.recorded_faces --mafw /work/.mirror [--json evals/results/recorded_faces_mafw_test.json]
    python -m studies.recorded_faces --javanese /work/.mirror --split dev|test [--json FILE]

The clips are the emotion-labelled recorded face videos reachable here (``evals/data/SOURCES.md``, "Recorded
face video"), taken from the repository snapshots under ``--mirrors`` (``<owner>+<name>/repo``, bare git
directories as the fetch tool leaves them): MEAD clips of two actors shipped by EAMM (a woman: fear and
surprised; a man: happy), one RAVDESS clip shipped by FaceShot, and StyleTalk's style clips (recorded web
video of several people, labelled by the repository's file names). Every clip is development data: the reserved clips (EAMM's sad, contempt and disgusted, MEAD
actors M030, W009, W011) are not listed and never read.

Each clip is decoded at the verifier's rate (4 fps); the perception engine (``tools.perception.engine``) reads the
largest face of each frame with each expression backend of ``BACKENDS`` (faceres was chosen partly on these
clips' frames, ``tools/models/FACERES.md``, so its figures here are development figures); the readings are pooled per clip by each method of
``POOLING`` and the top label is compared with the clip's label.

``--cremad DIR`` reads instead the CREMA-D clips that ``python -m evals.data.cremad`` writes (recorded test
data: 100 clips of 64 actors no reader was trained or chosen on; label and person from the file name).
``--mafw MIRRORS`` reads MAFW's sample clips (``MAFW_CLIPS``: film and TV scenes, in the wild, 10 fps GIFs
without sound, from the MAFW-database/MAFW snapshot; read once as test data, section 37, then development data:
section 55 chose the faceres weights partly on them; never trained on). ``--javanese MIRRORS --split dev|test``
reads the Javanese acted-emotion clips of that person split (``evals.data.javanese``: 120 clips of 5 people each;
no shipped reader was trained or chosen on them). A
clip with a compound label (two or three emotions) counts as right when the reading names any of them.

Pooling a (n_frames, 8) array of AffectNet-8 distributions into one (8,): an expression rises from neutral to
an apex and falls again (onset, apex, offset; Valstar and Pantic, 2012, "Fully automatic recognition of the
temporal phases of facial actions"), and a talking face passes through mouth shapes that read as other
expressions on single frames, so the plain mean (``mean``, what the verifier and the index use) dilutes the
apex. ``apex``: the mean over the most expressive ``APEX_SHARE`` of frames (expressiveness = 1 - P(neutral));
``apex10`` / ``apex50``: other shares; ``peak``: the single most expressive frame. Reported per method: clips
right, accuracy with a bootstrap 95% interval over people (``evals.metrics.bootstrap_interval``), and
per-person accuracy, since one person's clips are not independent.
"""

from __future__ import annotations

import argparse
import functools
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from studies.command import report
from tools.core.schema import AFFECTNET8

#: (repository, path in it, label, person): every recorded clip used. Labels: EAMM's and StyleTalk's file
#: names, RAVDESS's emotion code (08 = surprised).
CLIPS = [
    ("jixinya+EAMM", "test/video/fear.mp4", "fear", "mead-eamm-woman"),
    ("jixinya+EAMM", "test/video/happy.mp4", "happiness", "mead-eamm-man"),
    ("jixinya+EAMM", "test/video/surprised.mp4", "surprise", "mead-eamm-woman"),
    ("open-mmlab+FaceShot", "demo/videos/01-01-08-02-01-01-19.mp4", "surprise", "ravdess-19"),
    *[("FuxiVirtualHuman+styletalk", f"samples/style_clips/video/furious_talk1_clip{i}.mp4", "anger",
       "styletalk-furious1") for i in (1, 2)],
    *[("FuxiVirtualHuman+styletalk", f"samples/style_clips/video/furious_talk2_clip{i}.mp4", "anger",
       "styletalk-furious2") for i in range(1, 8)],
    *[("FuxiVirtualHuman+styletalk", f"samples/style_clips/video/happyenglish_clip{i}.mp4", "happiness",
       "styletalk-happyenglish") for i in (1, 2)],
    ("FuxiVirtualHuman+styletalk", "samples/style_clips/video/vscodehappy_clip1.mp4", "happiness",
     "styletalk-vscodehappy"),
    ("FuxiVirtualHuman+styletalk", "samples/style_clips/video/sad_emotion_clip1.mp4", "sadness", "styletalk-sademotion"),
    ("FuxiVirtualHuman+styletalk", "samples/style_clips/video/sadfather_clip1.mp4", "sadness", "styletalk-sadfather"),
    ("FuxiVirtualHuman+styletalk", "samples/style_clips/video/sadgirl_clip1.mp4", "sadness", "styletalk-sadgirl"),
    ("FuxiVirtualHuman+styletalk", "samples/style_clips/video/surprisegirl_clip2.mp4", "surprise",
     "styletalk-surprisegirl"),
]
#: Share of a span's frames, the most expressive ones, that the ``apex`` pooling averages.
APEX_SHARE = 0.25
NEUTRAL = AFFECTNET8.index("neutral")


def _expressiveness(frames: np.ndarray) -> np.ndarray:
    """1 - P(neutral) of each row of ``frames`` (n_frames, 8)."""
    return 1.0 - frames[:, NEUTRAL]


def mean_pool(frames: np.ndarray) -> np.ndarray:
    """The mean distribution (8,) of ``frames`` (n_frames, 8). Raises ValueError when there are no frames."""
    if len(frames) == 0:
        raise ValueError("no frames to pool")
    return frames.mean(axis=0)


def apex_pool(frames: np.ndarray, share: float = APEX_SHARE) -> np.ndarray:
    """The mean distribution (8,) of the ``share`` most expressive rows of ``frames`` (n_frames, 8), at least
    one (ties keep frame order). Raises ValueError when there are no frames."""
    if len(frames) == 0:
        raise ValueError("no frames to pool")
    k = max(1, round(share * len(frames)))
    top = np.argsort(-_expressiveness(frames), kind="stable")[:k]
    return frames[np.sort(top)].mean(axis=0)


def peak_pool(frames: np.ndarray) -> np.ndarray:
    """The distribution (8,) of the single most expressive row of ``frames`` (n_frames, 8)."""
    return apex_pool(frames, share=0.0)


#: Pooling methods by name (see the module doc).
POOLING: dict[str, Callable[[np.ndarray], np.ndarray]] = {"mean": mean_pool, "apex": apex_pool, "peak": peak_pool}


#: The verifier's frame rate on candidates (``agents.verifier``).
READ_FPS = 4.0
BACKENDS = ("face8", "faceres", "faceres+face8", "fer")
#: Apex shares tried beside ``APEX_SHARE``.
SHARES = (0.1, 0.5)


def _extract(mirrors: Path, out: Path, clips: list[tuple[str, str, str, str]] = CLIPS) -> list[Path]:
    """Each clip of ``clips`` (rows in the form of ``CLIPS``) written under ``out`` from its repository snapshot
    (``git show HEAD:path``)."""
    paths = []
    for repo, rel, _, _ in clips:
        git = mirrors / repo / "repo"
        if not git.is_dir():
            raise FileNotFoundError(f"{git} (fetch github:{repo.replace('+', '/')} first)")
        commit, _, path = rel.rpartition(":")  # "<commit>:<path>" for a file found only in the history
        dst = out / repo / path
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(subprocess.run(["git", "--git-dir", str(git), "show", f"{commit or 'HEAD'}:{path}"],
                                       check=True, capture_output=True).stdout)
        paths.append(dst)
    return paths


def read_clip(path: Path, engine) -> list[list[float]]:
    """AffectNet-8 distributions (n_frames, 8) of the largest face in each frame with a face, at ``READ_FPS``."""
    from tools.core.frames import iter_frames

    rows = []
    for t, frame in iter_frames(path, READ_FPS):
        obs = engine.observe_frame(t, frame, "f", hands=False)
        if obs.faces:
            face = max(obs.faces, key=lambda f: f.box.area)
            rows.append(list(face.expression.values()))
    return rows


def evaluate_rows(mirrors: Path, rows: list[tuple[str, str, str, str]]) -> dict:
    """``evaluate_clips`` over ``rows`` (in the form of ``CLIPS``), each clip written from its snapshot under
    ``mirrors`` into a temporary folder (``_extract``).

    Raises:
        FileNotFoundError: a snapshot is missing.
    """
    with tempfile.TemporaryDirectory() as tmp:
        return evaluate_clips(_extract(mirrors, Path(tmp), rows), rows)


def evaluate(mirrors: Path) -> dict:
    return evaluate_rows(mirrors, CLIPS)


def cremad_clips(folder: Path) -> tuple[list[Path], list[tuple[str, str, str, str]]]:
    """The CREMA-D clips under ``folder`` (``ActorID_Sentence_Emotion_Level.mp4``) and their (source, path,
    label, person) rows in the form of ``CLIPS``."""
    from evals.data.sources import CREMAD_LABELS

    paths = sorted(folder.glob("*_*_*_*.mp4"))
    rows = [("CREMA-D", p.name, CREMAD_LABELS[p.stem.split("_")[2]], p.stem.split("_")[0]) for p in paths]
    return paths, rows


#: MAFW's sample clips with an AffectNet-8 label (file under ``samples-gif/``, label; ``|`` joins a compound
#: label's emotions). Labels from the file names (the repository's README table agrees where it has a row); each
#: clip is a different film scene and person. The three clips whose only label lies outside AffectNet-8
#: (anxiety, disappointment, helplessness) are left out; anxiety in a compound label is dropped.
MAFW_CLIPS = [("anger_07317_4s.gif", "anger"), ("contempt_08668.gif", "contempt"), ("disgust_07734.gif", "disgust"),
              ("fear_09246.gif", "fear"), ("happy_01440.gif", "happiness"), ("neutral_00120_3s.gif", "neutral"),
              ("sad_00467.gif", "sadness"), ("surprise_15152.gif", "surprise"),
              ("anger-disgust_08827.gif", "anger|disgust"), ("anger-disgust-contempt_15120.gif", "anger|disgust|contempt"),
              ("fear_sad_07213.gif", "fear|sadness"), ("fear-sad-anxiety_09878.gif", "fear|sadness")]


def mafw_rows() -> list[tuple[str, str, str, str]]:
    """``MAFW_CLIPS`` as rows in the form of ``CLIPS`` (person: the clip's five-digit id)."""
    return [("MAFW-database+MAFW", f"samples-gif/{name}", label, re.search(r"\d{5}", name).group())
            for name, label in MAFW_CLIPS]


def evaluate_mafw(mirrors: Path) -> dict:
    return evaluate_rows(mirrors, mafw_rows())


#: RAVDESS actor 05's face crops (224 x 224, 15 frames at 5 fps, the katerynaCh multimodal-emotion-recognition
#: preprocessing) in a commit of RenatoEsposito1999/Multi-Modal-Emotion-Classification: the audio-video takes
#: (``01-01-EE-II-SS-RR-05``; the video-only ``02-`` files are the same performances), calm (02) left out (no
#: AffectNet-8 class). Labels: RAVDESS's emotion code (``evals.data.sources.RAVDESS_LABELS``).
RAVDESS05_COMMIT = "f2c8166488bd79926892ba625ed29d014ab700cb"
RAVDESS05_DIR = "modello-test/ravdess_preprocessing/RAVDESS/ACTOR05"


def ravdess05_rows() -> list[tuple[str, str, str, str]]:
    """RAVDESS actor 05's 52 audio-video performances other than calm as rows in the form of ``CLIPS``."""
    from evals.data.sources import RAVDESS_LABELS

    rows = []
    for emo in ("01", "03", "04", "05", "06", "07", "08"):
        for level in (("01",) if emo == "01" else ("01", "02")):
            for statement, rep in ((a, b) for a in ("01", "02") for b in ("01", "02")):
                name = f"01-01-{emo}-{level}-{statement}-{rep}-05_facecroppad.avi"
                rows.append(("RenatoEsposito1999+Multi-Modal-Emotion-Classification",
                             f"{RAVDESS05_COMMIT}:{RAVDESS05_DIR}/{name}", RAVDESS_LABELS[emo][1], "ravdess-05"))
    return rows


def evaluate_ravdess05(mirrors: Path) -> dict:
    return evaluate_rows(mirrors, ravdess05_rows())


def evaluate_javanese(mirrors: Path, split: str) -> dict:
    """``evaluate_clips`` over the Javanese clips of person split ``split`` ("dev" or "test"; ``evals.data.javanese``)
    in the snapshot under ``mirrors``.

    Raises:
        FileNotFoundError: the snapshot is missing.
    """
    from evals.data.javanese import rows as javanese_rows

    return evaluate_rows(mirrors, javanese_rows(mirrors, split))


def evaluate_clips(paths: list[Path], clips: list[tuple[str, str, str, str]]) -> dict:
    """Read each clip of ``paths`` (rows of ``clips``: source, path, label, person) with every backend of
    ``BACKENDS`` and score every pooling."""
    from tools.perception.engine import PerceptionConfig, load_engine

    readings = {b: [read_clip(p, load_engine(PerceptionConfig(expression_backend=b))) for p in paths]
                for b in BACKENDS}
    result: dict = {"clips": [{"repository": r, "path": p, "label": lab, "person": who,
                               "frames_with_face": len(readings[BACKENDS[0]][i])}
                              for i, (r, p, lab, who) in enumerate(clips)],
                    "read_fps": READ_FPS, "methods": {}}
    for backend in BACKENDS:
        methods = {**POOLING, **{f"apex{round(100 * q)}": functools.partial(apex_pool, share=q) for q in SHARES}}
        for name, pool in methods.items():
            pred = [AFFECTNET8[int(np.argmax(pool(np.array(r))))] if r else None for r in readings[backend]]
            result["methods"][f"{backend}/{name}"] = score_clips(pred, clips)
    return result


def named_right(pred: str | None, label: str) -> bool:
    """Whether a clip's predicted label ``pred`` (None: no face read) is one of its labels (``label``: "|"-joined
    where a clip carries two)."""
    return pred is not None and pred in label.split("|")


def score_clips(pred: list[str | None], clips: list[tuple[str, str, str, str]] = CLIPS) -> dict:
    """``pred`` (a label per clip of ``clips``, None where no face was read) against the clips' labels: clips
    right, accuracy with a bootstrap 95 % interval over people (``evals.metrics.bootstrap_interval``), the mean
    of the per-person accuracies, and the predictions."""
    from evals.metrics import bootstrap_interval

    people = [person for *_, person in clips]
    right = [named_right(p, lab) for p, (_, _, lab, _) in zip(pred, clips, strict=True)]
    lo, hi = bootstrap_interval(right, groups=people)
    per_person = [float(np.mean([r for r, w in zip(right, people, strict=True) if w == who]))
                  for who in dict.fromkeys(people)]
    return {"right": int(sum(right)), "n": len(right), "accuracy": round(float(np.mean(right)), 3),
            "ci95": [round(lo, 3), round(hi, 3)], "mean_over_people": round(float(np.mean(per_person)), 3),
            "predicted": pred}


def mirrors_main(description: str, evaluate_fn: Callable[..., dict], argv: list[str] | None = None,
                 cremad: bool = False, keep: tuple[tuple[str, str], ...] = (),
                 switches: tuple[tuple[str, str], ...] = ()) -> int:
    """The command line of a study over the recorded clips: ``--mirrors DIR [--json OUT]`` (``studies.command.report``);
    with ``cremad`` also ``--cremad CLIPS``, given to ``evaluate_fn`` after the mirrors; each (flag, help) of ``keep``
    an optional file flag (e.g. ``--readings`` for a study's stored readings; None when not given), given after
    those in that order; each (flag, help) of ``switches`` an on/off flag (False when not given), given last."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git snapshots")
    if cremad:
        ap.add_argument("--cremad", type=Path, required=True, help="folder of CREMA-D clips (python -m evals.data.cremad)")
    for k, (flag, help_text) in enumerate(keep):
        ap.add_argument(flag, dest=f"keep{k}", type=Path, default=None, metavar="FILE", help=help_text)
    for k, (flag, help_text) in enumerate(switches):
        ap.add_argument(flag, dest=f"switch{k}", action="store_true", help=help_text)
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    args = ap.parse_args(argv)
    extra = [*([args.cremad] if cremad else []), *(getattr(args, f"keep{k}") for k in range(len(keep))),
             *(getattr(args, f"switch{k}") for k in range(len(switches)))]
    return report(lambda: evaluate_fn(args.mirrors, *extra), args.json)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--mirrors", type=Path, help="folder of <owner>+<name>/repo git snapshots (the dev clips)")
    src.add_argument("--cremad", type=Path, help="folder of CREMA-D clips (python -m evals.data.cremad; test)")
    src.add_argument("--mafw", type=Path, metavar="MIRRORS", help="folder holding the MAFW-database+MAFW snapshot "
                     "(its sample clips; test)")
    src.add_argument("--ravdess05", type=Path, metavar="MIRRORS", help="folder holding the "
                     "RenatoEsposito1999+Multi-Modal-Emotion-Classification snapshot (RAVDESS actor 05's face crops; dev)")
    src.add_argument("--javanese", type=Path, metavar="MIRRORS", help="folder holding the "
                     "2black0+video-emotion-recognition-javanese snapshot (the Javanese acted-emotion clips)")
    ap.add_argument("--split", choices=("dev", "test"), default=None, help="with --javanese: the person split (dev)")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    args = ap.parse_args(argv)
    if args.split and not args.javanese:
        ap.error("--split goes with --javanese")
    if args.javanese:
        return report(lambda: evaluate_javanese(args.javanese, args.split or "dev"), args.json)
    if args.ravdess05:
        return report(lambda: evaluate_ravdess05(args.ravdess05), args.json)
    if args.mafw:
        return report(lambda: evaluate_mafw(args.mafw), args.json)
    if args.cremad:
        return report(lambda: evaluate_clips(*cremad_clips(args.cremad)), args.json)
    return report(lambda: evaluate(args.mirrors), args.json)


if __name__ == "__main__":
    sys.exit(main())
