"""Recorded Javanese acted-emotion clips (``evals/data/SOURCES.md``): 240 clips of 10 people, split by person.

    python -m evals.data.javanese --mirrors /work/.mirror --split dev|test --out DIR

The repository 2black0/video-emotion-recognition-javanese (fetched as ``<mirrors>/2black0+video-emotion-recognition-
javanese/repo``) holds ``dataset-resize/AA-BB-CC_01.mp4``: person ``AA`` (01-10), sentence ``BB`` (01-04, spoken in
Javanese), emotion ``CC`` (``EMOTIONS``), take 01; frontal head-and-shoulders recordings against a plain wall, 360x270,
30 fps, 1.7-8 s each, with their speech. The emotion codes are those of the author's speech set recorded the same way
(2black0/sound-emotion-recognition-javanese, README: 01 neutral, 02 sadness, 03 happiness, 04 surprise, 05 fear,
06 anger). No shipped reader or head was trained on any of these people (``evals/RESULTS.md`` section 62
trained faceres candidates on the development people; none was kept); the fusion's voice weight was chosen partly on
the development people's clips (section 77).

Split by person (``TEST_PEOPLE``): the even-numbered five were test (120 clips; read as test in ``evals/RESULTS.md``
sections 63, 133 and 166, development data since section 167), the odd-numbered five development.
``--out`` receives the split's clips under their own names (``python -m evals.build_bench DIR --format javanese``
reads them); ``rows`` gives them in the form of ``studies.recorded_faces.CLIPS``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from evals.data.sources import repository_files

#: The repository snapshot's folder name under the mirrors (``owner+name``) and the clips' folder in it.
REPOSITORY, FOLDER = "2black0+video-emotion-recognition-javanese", "dataset-resize"
#: Emotion code -> AffectNet-8 (the author's speech set README, module doc).
EMOTIONS = {"01": "neutral", "02": "sadness", "03": "happiness", "04": "surprise", "05": "fear", "06": "anger"}
#: The people read as test data until section 167 (development data since); the others are development data.
TEST_PEOPLE = frozenset({"02", "04", "06", "08", "10"})
NAME = re.compile(r"^(\d\d)-(\d\d)-(\d\d)_(\d\d)\.mp4$")


def parse(name: str) -> tuple[str, str, str] | None:
    """(person, sentence, AffectNet-8 emotion) of a clip's file name ``AA-BB-CC_RR.mp4``, or None for another name."""
    m = NAME.match(name)
    if not m or m.group(3) not in EMOTIONS:
        return None
    return m.group(1), m.group(2), EMOTIONS[m.group(3)]


def rows(mirrors: Path, split: str) -> list[tuple[str, str, str, str]]:
    """The ``split`` ("dev" or "test") clips of the snapshot under ``mirrors`` as (repository, path, label, person)
    rows, sorted by path.

    Raises:
        FileNotFoundError: the snapshot is missing (fetch github:2black0/video-emotion-recognition-javanese).
        ValueError: ``split`` is neither "dev" nor "test".
    """
    if split not in ("dev", "test"):
        raise ValueError(f"split must be dev or test, not {split!r}")
    git = mirrors / REPOSITORY / "repo"
    if not git.is_dir():
        raise FileNotFoundError(f"{git} (fetch github:{REPOSITORY.replace('+', '/')} first)")
    names = subprocess.run(["git", "--git-dir", str(git), "ls-tree", "--name-only", f"HEAD:{FOLDER}"],
                           check=True, capture_output=True, text=True).stdout.split()
    out = []
    for name in sorted(names):
        parsed = parse(name)
        if parsed and (parsed[0] in TEST_PEOPLE) == (split == "test"):
            out.append((REPOSITORY, f"{FOLDER}/{name}", parsed[2], f"javanese-{parsed[0]}"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.data.javanese", description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git snapshots")
    ap.add_argument("--split", choices=("dev", "test"), required=True)
    ap.add_argument("--out", type=Path, required=True, help="folder to write the split's clips to")
    args = ap.parse_args(argv)
    try:
        found = rows(args.mirrors, args.split)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as exc:  # a folder that is not a git snapshot
        print(f"error: {args.mirrors / REPOSITORY / 'repo'}: cannot list the clips: {exc.stderr.strip()}",
              file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    git = args.mirrors / REPOSITORY / "repo"
    wanted = re.compile("^(?:" + "|".join(re.escape(path) for _, path, _, _ in found) + ")$")
    try:
        for path, data in repository_files(git, wanted):
            (args.out / Path(path).name).write_bytes(data)
    except subprocess.CalledProcessError as exc:
        print(f"error: {git}: cannot read the clips: {exc.stderr.decode(errors='replace').strip()}", file=sys.stderr)
        return 2
    print(f"wrote {len(found)} {args.split} clips of {len({r[3] for r in found})} people to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
