"""Assemble the labelled face and speech sets the project measures itself on, split by person.

    python -m evals.data.assemble --source ckplus=DIR --source rafdb=DIR --source ravdess=DIR \
        --source emodb=DIR --source meld=DIR --source utkface=DIR [--out DIR]

Each ``DIR`` is a clone (work tree) or a bare git directory of the public repository that holds the
set (``evals/data/SOURCES.md`` names them, with licences and label origins). Nothing is downloaded:
files are copied (or, from a bare git directory, read with ``git archive``) into
``<out>/<set>/`` and listed in ``<out>/<set>/manifest.jsonl``, one record per file:
``{"path", "label" (AffectNet-8), "raw_label", "person", "split" ("dev" | "test")}``, and for the speech
sets the spoken sentence as ``text`` and its ``language``.
Default ``out``: ``<cache>/data`` (``$AFFECTSEEK_CACHE`` or ``~/.cache/affectseek``).

Splits (no person in both):
- CK+ (``CK+48/<emotion>/Sxxx_yyy_zzzzzzzz.png``): subject ``Sxxx`` with number divisible by 3 is test.
- RAVDESS speech (``Actor_NN/03-01-EE-II-SS-RR-AA.wav``): actors 19-24 (3 male, 3 female) are test.
  Calm (02) is kept as raw label ``calm`` and mapped to AffectNet-8 ``neutral``.
- EMO-DB subset (``dataset/{Angry,Happy,Neutral,Sad}/SSTTTEv.wav``, German): speakers 12-16 are test.
- RAF-DB basic (``DATASET/{train,test}/<emotion>/*_aligned.jpg``): no person ids, so its own split:
  train is dev, test is test.
- MELD text (``data/MELD/{train,dev,test}_sent_emo.csv``: utterances of the TV series Friends, each with
  the majority label of three annotators who watched the clip; Poria et al., 2019, ACL): the dataset's own
  split, since its main speakers appear in every part (no person split is possible): train and dev are
  dev (``fold`` "train" / "val"), test is test. One record per utterance, its words in ``text`` and in a
  ``.txt`` file; ``person`` is the speaker's name.
- UTKFace, its aligned and cropped faces of part 1 (``crop_part1/A_G_R_YYYYMMDDHHMMSSmmm.jpg.chip.jpg``: age A in
  years, gender G 0 male / 1 female, race R, collection time; Zhang, Song and Qi, 2017, CVPR): one face per
  image, for the appearance head (``studies.train_appearance``), not for emotion. UTKFace has no person ids,
  so images are grouped by the hour they were collected (``group``, the time stamp's first 10 digits;
  images of one crawl, such as several photos of one person, stay together) and a group whose CRC-32 % 5
  == 0 is test. ``label`` is None; ``raw_label`` is the annotated gender ("female" / "male"), ``age`` the
  annotated age, ``race`` the annotated race (used only to report accuracy per group).
- speakers (pyAudioAnalysis ``data/diarizationExample*.wav`` with their ``.segments`` speaker turns;
  real recordings of 4 and 6 speakers, the first a radio phone-in; the turns go into the record as ``turns``): test only, never used for fitting.

Reserved evaluation material (MEAD M030/W009/W011, CREMA-D 1001, Emotion-LLaMA examples) is never read.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from tools.registry import cache_root

CKPLUS_LABELS = {"anger": "anger", "contempt": "contempt", "disgust": "disgust", "fear": "fear",
                 "happy": "happiness", "sadness": "sadness", "surprise": "surprise"}
RAFDB_LABELS = {"angry": "anger", "disgust": "disgust", "fear": "fear", "happy": "happiness",
                "neutral": "neutral", "sad": "sadness", "suprise": "surprise", "surprise": "surprise"}
#: RAVDESS emotion code -> (raw label, AffectNet-8); Livingstone & Russo (2018), PLoS ONE 13(5).
RAVDESS_LABELS = {"01": ("neutral", "neutral"), "02": ("calm", "neutral"), "03": ("happy", "happiness"),
                  "04": ("sad", "sadness"), "05": ("angry", "anger"), "06": ("fearful", "fear"),
                  "07": ("disgust", "disgust"), "08": ("surprised", "surprise")}
RAVDESS_TEST_ACTORS = range(19, 25)
#: RAVDESS statement code -> the sentence every actor speaks (Livingstone & Russo, 2018).
RAVDESS_TEXTS = {"01": "Kids are talking by the door", "02": "Dogs are sitting by the door"}
#: EMO-DB text code -> German sentence (Burkhardt et al., 2005, "A database of German emotional speech",
#: Interspeech; the ten sentences listed in the database's documentation).
EMODB_TEXTS = {
    "a01": "Der Lappen liegt auf dem Eisschrank.",
    "a02": "Das will sie am Mittwoch abgeben.",
    "a04": "Heute abend könnte ich es ihm sagen.",
    "a05": "Das schwarze Stück Papier befindet sich da oben neben dem Holzstück.",
    "a07": "In sieben Stunden wird es soweit sein.",
    "b01": "Was sind denn das für Tüten, die da unter dem Tisch stehen?",
    "b02": "Sie haben es gerade hochgetragen und jetzt gehen sie wieder runter.",
    "b03": "An den Wochenenden bin ich jetzt immer nach Hause gefahren und habe Agnes besucht.",
    "b09": "Ich will das eben wegbringen und dann mit Karl was trinken gehen.",
    "b10": "Die wird auf dem Platz sein, wo wir sie immer hinlegen.",
}
EMODB_LABELS = {"Angry": ("angry", "anger"), "Happy": ("happy", "happiness"), "Neutral": ("neutral", "neutral"),
                "Sad": ("sad", "sadness")}
EMODB_TEST_SPEAKERS = range(12, 17)

_CK = re.compile(r"(?:^|/)CK\+48/([a-z]+)/(S\d{3})_\d{3}_\d{8}\.png$")
_RAF = re.compile(r"(?:^|/)DATASET/(train|test)/([a-z]+)/([^/]+_aligned\.jpg)$")
_RAV = re.compile(r"(?:^|/)Actor_(\d\d)/(03-01-(\d\d)-\d\d-(\d\d)-\d\d-(\d\d)\.wav)$")
#: pyAudioAnalysis's speaker-labelled recordings (Giannakopoulos, 2015, PLoS ONE 10(12); Apache-2.0):
#: each ``.wav`` has a ``.segments`` file of ``start end speakerX`` rows.
_SPK = re.compile(r"(?:^|/)pyAudioAnalysis/data/(diarizationExample\d?)\.(wav|segments)$")
_MELD = re.compile(r"(?:^|/)data/MELD/(train|dev|test)_sent_emo\.csv$")
#: MELD's seven labels -> AffectNet-8 (joy is happiness; MELD has no contempt).
MELD_LABELS = {"neutral": "neutral", "joy": "happiness", "sadness": "sadness", "surprise": "surprise",
               "fear": "fear", "disgust": "disgust", "anger": "anger"}
_UTK = re.compile(r"(?:^|/)crop_part1/((\d+)_([01])_(\d)_((\d{10})\d{7})\.jpg\.chip\.jpg)$")
#: UTKFace's race field (its dataset page): 0-4.
UTKFACE_RACES = ("White", "Black", "Asian", "Indian", "Others")
_EMO = re.compile(r"(?:^|/)dataset/(Angry|Happy|Neutral|Sad)/((\d\d)([ab]\d\d)[A-Z][a-z]\.wav)$")


def repository_files(source: Path, pattern: re.Pattern) -> Iterator[tuple[str, bytes]]:
    """(repository path, bytes) of every file under ``source`` whose path matches ``pattern``.

    ``source`` is a work tree or a bare git directory (then read at HEAD with ``git archive``).

    Raises:
        FileNotFoundError: ``source`` does not exist.
    """
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such directory")
    if (source / "HEAD").is_file() and (source / "objects").is_dir():  # a bare git directory
        names = subprocess.run(["git", "--git-dir", str(source), "ls-tree", "-r", "--name-only", "HEAD"],
                               check=True, capture_output=True, text=True).stdout.splitlines()
        wanted = [n for n in names if pattern.search(n)]
        # the 2 GiB of unrelated files in some of these repositories are skipped by naming what we want
        for i in range(0, len(wanted), 2000):
            tar = subprocess.run(["git", "--git-dir", str(source), "archive", "--format=tar", "HEAD", "--",
                                  *wanted[i:i + 2000]], check=True, capture_output=True).stdout
            with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
                for m in tf:
                    if m.isfile():
                        yield m.name, tf.extractfile(m).read()
        return
    for p in sorted(source.rglob("*")):
        rel = p.relative_to(source).as_posix()
        if p.is_file() and pattern.search(rel):
            yield rel, p.read_bytes()


def _records(name: str, source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """(file name in the set, bytes, manifest record without ``path``) for set ``name``."""
    if name == "ckplus":
        seen = set()
        for rel, data in repository_files(source, _CK):
            m = _CK.search(rel)
            fname = Path(rel).name
            if m.group(1) not in CKPLUS_LABELS or fname in seen:  # some repos hold CK+48 twice
                continue
            seen.add(fname)
            subject = m.group(2)
            yield f"{m.group(1)}/{fname}", data, {
                "label": CKPLUS_LABELS[m.group(1)], "raw_label": m.group(1), "person": subject,
                "split": "test" if int(subject[1:]) % 3 == 0 else "dev"}
    elif name == "rafdb":
        seen = set()
        for rel, data in repository_files(source, _RAF):
            m = _RAF.search(rel)
            key = (m.group(1), m.group(3))
            if m.group(2) not in RAFDB_LABELS or key in seen:
                continue
            seen.add(key)
            yield f"{m.group(1)}/{m.group(2)}/{m.group(3)}", data, {
                "label": RAFDB_LABELS[m.group(2)], "raw_label": m.group(2), "person": None,
                "split": "dev" if m.group(1) == "train" else "test"}
    elif name == "ravdess":
        for rel, data in repository_files(source, _RAV):
            m = _RAV.search(rel)
            actor, code = int(m.group(5)), m.group(3)
            raw, label = RAVDESS_LABELS[code]
            yield f"Actor_{actor:02d}/{m.group(2)}", data, {
                "label": label, "raw_label": raw, "person": f"A{actor:02d}",
                "split": "test" if actor in RAVDESS_TEST_ACTORS else "dev",
                "text": RAVDESS_TEXTS[m.group(4)], "language": "en"}
    elif name == "emodb":
        for rel, data in repository_files(source, _EMO):
            m = _EMO.search(rel)
            if m.group(4) not in EMODB_TEXTS:
                continue
            raw, label = EMODB_LABELS[m.group(1)]
            speaker = int(m.group(3))
            yield f"{m.group(1)}/{m.group(2)}", data, {
                "label": label, "raw_label": raw, "person": f"S{speaker:02d}",
                "split": "test" if speaker in EMODB_TEST_SPEAKERS else "dev",
                "text": EMODB_TEXTS[m.group(4)], "language": "de"}
    elif name == "meld":
        import csv

        for rel, data in repository_files(source, _MELD):
            part = _MELD.search(rel).group(1)
            for row in csv.DictReader(io.StringIO(data.decode("utf-8"))):
                raw = row["Emotion"].strip()
                yield f"{part}/{row['Dialogue_ID']}_{row['Utterance_ID']}.txt", row["Utterance"].encode(), {
                    "label": MELD_LABELS[raw], "raw_label": raw, "person": row["Speaker"],
                    "split": "test" if part == "test" else "dev", "fold": {"dev": "val"}.get(part, part),
                    "text": row["Utterance"], "language": "en"}
    elif name == "utkface":
        for rel, data in repository_files(source, _UTK):
            m = _UTK.search(rel)
            group = m.group(6)
            yield m.group(1), data, {"label": None, "raw_label": "female" if m.group(3) == "1" else "male",
                                     "age": int(m.group(2)), "race": UTKFACE_RACES[int(m.group(4))],
                                     "person": None, "group": group,
                                     "split": "test" if zlib.crc32(group.encode()) % 5 == 0 else "dev"}
    elif name == "speakers":
        files = {rel: data for rel, data in repository_files(source, _SPK)}
        for rel, data in sorted(files.items()):
            m = _SPK.search(rel)
            labels = files.get(rel[:-len(m.group(2))] + "segments")
            if m.group(2) != "wav" or labels is None:
                continue
            rows = labels.decode().split()
            turns = [[float(rows[i]), float(rows[i + 1]), rows[i + 2]] for i in range(0, len(rows) - 2, 3)]
            yield f"{m.group(1)}.wav", data, {"label": None, "raw_label": None, "person": None, "split": "test",
                                             "turns": turns}
    else:
        raise ValueError(f"unknown set {name!r}; choose ckplus, rafdb, ravdess, emodb, meld, utkface or speakers")


def assemble(name: str, source: Path, out: Path) -> Counter:
    """Write set ``name`` from ``source`` into ``out/name`` (replacing it); returns counts per (split, label).

    Raises:
        FileNotFoundError: ``source`` is missing.
        ValueError: unknown set, or no file of the set was found under ``source``.
    """
    dest = out / name
    staging = out / f".{name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    counts: Counter = Counter()
    with_lines = []
    for fname, data, rec in _records(name, source):
        path = staging / fname
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        with_lines.append(json.dumps({"path": fname, **rec}))
        counts[(rec["split"], rec["label"] or rec["raw_label"] or "unlabelled")] += 1
    if not with_lines:
        shutil.rmtree(staging, ignore_errors=True)
        raise ValueError(f"{source}: no {name} file found")
    (staging / "manifest.jsonl").write_text("\n".join(with_lines) + "\n")
    shutil.rmtree(dest, ignore_errors=True)
    staging.rename(dest)
    return counts


def load_manifest(root: Path, name: str, split: str | None = None) -> list[dict]:
    """Records of set ``name`` under ``root`` (``path`` made absolute), optionally one split only.

    Raises:
        FileNotFoundError: the set was not assembled (run ``python -m evals.data.assemble``).
    """
    path = root / name / "manifest.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not assembled; run python -m evals.data.assemble --source {name}=DIR")
    recs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [{**r, "path": str(root / name / r["path"])} for r in recs if split in (None, r["split"])]


def in_fusion_fold(name: str, record: dict) -> bool:
    """Whether a dev ``record`` of set ``name`` belongs to the fusion fold: dev people held out of the
    face and voice heads' training when the emotion reasoner's fusion is fitted (``studies.fit_fusion``), so
    that the fit sees the heads as they behave on people they were not trained on.

    CK+ dev subjects with number % 3 == 1 (the face head's validation subjects), RAVDESS actors with
    number % 3 == 1 (1, 4, 7, 10, 13, 16: three men, three women), RAF-DB train images whose file name
    has CRC-32 % 10 == 0 (about 10 %; RAF-DB has no person ids). Test records are never in it.
    """
    if record.get("split") != "dev":
        return False
    if name in ("ckplus", "ravdess"):
        return int(str(record["person"])[1:]) % 3 == 1
    if name == "rafdb":
        return zlib.crc32(Path(record["path"]).name.encode()) % 10 == 0
    return False


def default_root() -> Path:
    """``<cache>/data``: where assembled sets live by default."""
    return cache_root() / "data"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.data.assemble", description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", action="append", required=True, metavar="SET=DIR",
                    help="ckplus=DIR, rafdb=DIR, ravdess=DIR, emodb=DIR, meld=DIR, utkface=DIR or speakers=DIR: a clone or bare git dir of the set's repository")
    ap.add_argument("--out", type=Path, default=None, help="output root (default <cache>/data)")
    args = ap.parse_args(argv)
    out = args.out or default_root()
    out.mkdir(parents=True, exist_ok=True)
    for spec in args.source:
        name, _, directory = spec.partition("=")
        try:
            counts = assemble(name, Path(directory), out)
        except (FileNotFoundError, ValueError, subprocess.CalledProcessError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        total = sum(counts.values())
        per = ", ".join(f"{s} {lab} {n}" for (s, lab), n in sorted(counts.items()))
        print(f"{name}: {total} files -> {out / name} ({per})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
