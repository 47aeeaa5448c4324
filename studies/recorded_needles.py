"""Recorded needle videos: a few emotional clips among many calm ones, the form issue 32 was filed on
(``evals/RESULTS.md`` section 197).

    python -m studies.recorded_needles --mirrors /work/.mirror --out DIR [--seeds 5 11 12 13]
    python -m evals.run --bench DIR/bench.jsonl --method graph|reading|clip_only --out DIR/runs/NAME
    python -m evals.summary --bench DIR/bench.jsonl --run graph=DIR/runs/graph ... --against graph

Each video joins the Javanese acted-emotion clips' 40 neutral clips (all ten people; ``evals.data.javanese``, whose
people have all been development data since section 167) with seven emotional clips drawn by the video's seed
(``NEEDLES``: one of each of the five emotions and two more; ``NEEDLES_OF`` for a seed drawn otherwise), in an order
drawn by the same seed (``evals.build_bench.build``): 139-142 s of recorded talking faces for the four default seeds,
calm but for seven clips of 2-5 s. Each
emotion in a video is asked once, by ``evals.build_bench``'s templates; the neutral question has 40 right answers, the
others one or two. ``DIR/bench.jsonl`` holds every video's items, their videos named by absolute path.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evals.build_bench import LabelledClip

#: The emotions of a video's seven needles: one of each the set holds but neutral, and a second sadness and surprise.
NEEDLES = ("happiness", "sadness", "surprise", "fear", "anger", "sadness", "surprise")
#: Seeds whose video draws other needles: seed 5, the first drawn, took a second fear and anger (section 197).
NEEDLES_OF = {5: ("happiness", "sadness", "surprise", "fear", "anger", "fear", "anger")}


def needle_clips(clips: list[LabelledClip], seed: int, needles: tuple[str, ...] = NEEDLES) -> list[LabelledClip]:
    """``clips`` reduced to every neutral clip and one clip of each emotion of ``needles``, drawn by ``seed``, each a
    clip not drawn before.

    Raises:
        IndexError: an emotion of ``needles`` has no clip left to draw.
    """
    rng = random.Random(seed)
    picked: list[LabelledClip] = []
    for emotion in needles:
        picked.append(rng.choice([c for c in clips if c.emotion == emotion and c not in picked]))
    return [c for c in clips if c.emotion == "neutral"] + picked


def build_benches(mirrors: Path, out: Path, seeds: list[int]) -> Path:
    """One needle video a seed under ``out/seed_<seed>/`` and their items together in ``out/bench.jsonl`` (videos by
    absolute path); returns that file's path."""
    from evals.build_bench import build, read_javanese
    from evals.data.javanese import FOLDER, REPOSITORY
    from evals.data.sources import repository_files

    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for rel, data in repository_files(mirrors / REPOSITORY / "repo", re.compile(f"^{FOLDER}/[^/]+\\.mp4$")):
            (Path(tmp) / Path(rel).name).write_bytes(data)
        clips = read_javanese(Path(tmp))  # every person's: all development data since section 167
        for seed in seeds:
            chosen = needle_clips(clips, seed, NEEDLES_OF.get(seed, NEEDLES))
            bench = build(chosen, out / f"seed_{seed}", per_video=len(chosen), seed=seed)
            for line in bench.read_text().splitlines():
                item = json.loads(line)
                item["id"] = f"seed_{seed}-{item['id']}"
                item["video"] = str((bench.parent / item["video"]).resolve())
                lines.append(json.dumps(item))
    (out / "bench.jsonl").write_text("\n".join(lines) + "\n")
    return out / "bench.jsonl"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.recorded_needles", description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git snapshots")
    ap.add_argument("--out", type=Path, required=True, help="folder for the videos and bench.jsonl")
    ap.add_argument("--seeds", type=int, nargs="+", default=[5, 11, 12, 13])
    args = ap.parse_args(argv)
    print(f"wrote {build_benches(args.mirrors, args.out, args.seeds)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
