"""Assemble the labelled face and speech sets the project measures itself on, split by person.

    python -m evals.data.assemble --source ckplus=DIR --source rafdb=DIR --source fer2013=DIR --source ravdess=DIR \
        --source emodb=DIR --source meld=DIR --source goemotions=DIR --source utkface=DIR [--out DIR]

Each ``DIR`` is a clone (work tree) or a bare git directory of the public repository that holds the
set (``evals/data/SOURCES.md`` names them, with licences and label origins). Nothing is downloaded:
files are copied (or, from a bare git directory, read with ``git archive``) into
``<out>/<set>/`` and listed in ``<out>/<set>/manifest.jsonl``, one record per file:
``{"path", "label" (AffectNet-8), "raw_label", "person", "split" ("dev" | "test")}``, and for the speech
sets the spoken sentence as ``text`` and its ``language``.
Default ``out``: ``<cache>/data`` (``$AFFECTSEEK_CACHE`` or ``~/.cache/affectseek``).

Splits (no person in both):
- CK+ (``CK+48/<emotion>/Sxxx_yyy_zzzzzzzz.png``): subject ``Sxxx`` with number divisible by 3 is test.
- FER2013 (``{train,validation,test}/<emotion>/<n>.jpg``, 48x48 grey web faces; Goodfellow et al., 2013): no
  person ids, so its own split: train and validation are dev (``fold`` "train" / "val"), test is test.
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
- GoEmotions in its authors' Ekman groups (``data/ekman/{train,dev,test}.tsv``: English Reddit comments, each with
  the groups its raters chose; Demszky et al., 2020, ACL): the comments in one group, in the set's own split, since
  comment authors are not given: train and dev are dev (``fold`` "train" / "val"), test is test. One record per
  comment, its words in ``text`` and in a ``.txt`` file; ``person`` is None.
- UTKFace, its aligned and cropped faces of part 1 (``crop_part1/A_G_R_YYYYMMDDHHMMSSmmm.jpg.chip.jpg``: age A in
  years, gender G 0 male / 1 female, race R, collection time; Zhang, Song and Qi, 2017, CVPR): one face per
  image, for the appearance head (``studies.train_appearance``), not for emotion. UTKFace has no person ids,
  so images are grouped by the hour they were collected (``group``, the time stamp's first 10 digits;
  images of one crawl, such as several photos of one person, stay together) and a group whose CRC-32 % 5
  == 0 is test. ``label`` is None; ``raw_label`` is the annotated gender ("female" / "male"), ``age`` the
  annotated age, ``race`` the annotated race (used only to report accuracy per group).
- speakers (pyAudioAnalysis ``data/diarizationExample*.wav`` with their ``.segments`` speaker turns;
  real recordings of 4 and 6 speakers, the first a radio phone-in; the turns go into the record as ``turns``): test only, never used for fitting.

Each set's label map, file pattern and reader are in ``evals.data.sources``.

Reserved evaluation material (MEAD M030/W009/W011, CREMA-D 1001, Emotion-LLaMA examples) is never read.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

from evals.data.reserved import reserved
from evals.data.sources import set_records
from tools.core.registry import cache_root


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
    for fname, data, rec in set_records(name, source):
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
    """Records of set ``name`` under ``root`` (``path`` made absolute), optionally one split only; reserved material
    (``evals.data.reserved``) is never among them.

    Raises:
        FileNotFoundError: the set was not assembled (run ``python -m evals.data.assemble``).
    """
    path = root / name / "manifest.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not assembled; run python -m evals.data.assemble --source {name}=DIR")
    recs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    recs = [r for r in recs if reserved(r["path"]) is None]  # never read, whatever a manifest lists
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
                    help="ckplus=DIR, rafdb=DIR, ravdess=DIR, emodb=DIR, meld=DIR, goemotions=DIR, utkface=DIR or "
                         "speakers=DIR: a clone or bare git dir of the set's repository")
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
