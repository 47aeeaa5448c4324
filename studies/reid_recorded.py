"""Re-identification on recorded video: are two tracks of a joined video one person?

    python -m studies.reid_recorded --mirrors DIR --split dev|test --work WORK [--at STRICT CONTINUITY]
        [--json evals/results/reid_recorded_dev.json]

The Javanese acted-emotion clips of the split's five people (``evals.data.javanese``: recorded talking heads, frontal,
one person a clip) are joined 12 to a video in a seeded shuffle (``evals.build_bench``, seed 0, several people to a
video), so each video shows several of the five in turn, cut to each other in place.
Each video is indexed (the default config, cached in ``WORK``), each track's identity descriptor is made as the index
pass makes it (``indexing.visual.track_descriptors`` on the index's face records, the frames decoded again at their
times), and every pair of tracks never on screen together is scored: one person or not (the person of the clips the
track spans; a track that runs over a join the cut detector missed spans clips of one person, or the study stops).

Reported per value of ``studies.reid.GRID``: the pairs' TAR and FAR, and the people
``tools.signals.tracks.reidentify`` makes with that strict bound (the continuity bound 0.54, or the strict one where
larger): pairwise precision and recall of "one person" over the tracks, and ids per person. On the development people
the bounds are chosen by section 12's rule (``studies.reid``): the largest grid value whose FAR stays <= ``MAX_FAR``
(strict) and <= ``MAX_FAR_CONTINUITY`` (continuity), each then capped by the value CK+'s development subjects gave
(``evals/results/reid.json``); ``--at`` reports the people made with any pair of bounds. The shipped bounds stay
CK+'s (``tools.signals.tracks``); ``evals/RESULTS.md`` section 171 says what the recorded ones changed and why they
are not used yet.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from pathlib import Path

import numpy as np

from studies.command import report
from studies.reid import GRID, MAX_FAR, MAX_FAR_CONTINUITY, rates

CLIPS_PER_VIDEO, SEED = 12, 0
CKPLUS = Path(__file__).resolve().parents[1] / "evals" / "results" / "reid.json"


def bench(mirrors: Path, split: str, work: Path) -> dict[str, list[tuple[float, float, str]]]:
    """Per joined video of the split (built into ``work`` once), its path -> its clips' (start_s, end_s, person).

    Raises:
        FileNotFoundError: the clips are not under ``mirrors``.
        ValueError: a bench in ``work`` holds other clips than the seeded shuffle gives.
    """
    from evals.build_bench import build, groups, read_javanese
    from evals.data import javanese
    from evals.data.reserved import without_reserved

    clips, out = work / f"{split}_clips", work / f"{split}_bench"
    if not clips.is_dir() and javanese.main(["--mirrors", str(mirrors), "--split", split, "--out", str(clips)]):
        raise FileNotFoundError(f"the Javanese clips are not under {mirrors} (evals/data/SOURCES.md)")
    labelled, _ = without_reserved(read_javanese(clips), lambda c: c.path)  # as ``build`` leaves them out
    if not (out / "bench.jsonl").is_file():
        build(labelled, out, per_video=CLIPS_PER_VIDEO, seed=SEED)
    lines = [json.loads(x) for x in (out / "bench.jsonl").read_text().splitlines()]
    people = {}
    for v, group in enumerate(groups(labelled, CLIPS_PER_VIDEO, random.Random(SEED))):
        name = f"videos/long_{v:03d}.mp4"
        spans = sorted((m["start_s"], m["end_s"], m["emotion"]) for x in lines if x["video"] == name
                       for m in x["moments"])
        if [e for *_, e in spans] != [c.emotion for c in group]:
            raise ValueError(f"{out / name}: its moments are not the seeded clips' (rebuild {out})")
        people[str(out / name)] = [(s, e, c.person) for (s, e, _), c in zip(spans, group, strict=True)]
    return people


def descriptors(video: str, cache_dir: Path) -> tuple[list, dict[int, np.ndarray], list[int | None]]:
    """The video's tracks, each track's identity descriptor as the index pass makes it (the mean of
    ``indexing.visual.track_descriptors``), and the index's own person per track (the shipped bounds)."""
    from graphs.pipeline import open_index
    from indexing.visual import face_jpeg, frame_shape, track_descriptors
    from tools.core.frames import iter_frames
    from tools.core.media import sampling_start
    from tools.perception.engine import load_engine

    index = open_index(video, cache_dir=cache_dir)
    info, fps = index.info, index.config.sample_fps
    by_time = {round(fr.t, 3): fr.faces for fr in index.faces if fr.faces}
    crops = {}
    for ts, frame in iter_frames(info.path, fps, sampling_start(info, 0.0, fps)):
        for f in by_time.get(round(ts, 3), []):
            crops[f.id] = face_jpeg(frame, f.box)
    faces = {f.id: f for fs in by_time.values() for f in fs}
    described = track_descriptors(index.tracks, faces, crops, frame_shape(info), load_engine(index.config.perception()))
    return index.tracks, {t: np.mean(v, axis=0) for t, v in described.items()}, [t.person for t in index.tracks]


def _person(track, spans: list[tuple[float, float, str]], video: str) -> str:
    """The person of the clips ([start_s, end_s) each) a track's faces fall in, from its first face to its last.

    Raises:
        ValueError: the track spans clips of two people (a join the cut detector missed, between two people), or none.
    """
    people = {p for s, e, p in spans if track.first_s < e and track.last_s >= s}
    if len(people) != 1:
        raise ValueError(f"{video}: track {track.track_id} ({track.first_s}-{track.last_s} s) spans people {people}")
    return people.pop()


def _pairs(videos: dict) -> tuple[np.ndarray, np.ndarray]:
    dist, same = [], []
    for tracks, desc, who in videos.values():
        for a, b in itertools.combinations(tracks, 2):
            if a.first_s <= b.last_s and b.first_s <= a.last_s or a.track_id not in desc or b.track_id not in desc:
                continue
            dist.append(float(np.linalg.norm(desc[a.track_id] - desc[b.track_id])))
            same.append(who[a.track_id] == who[b.track_id])
    return np.asarray(dist), np.asarray(same, bool)


def people_made(videos: dict, strict: float, continuity: float) -> dict:
    """Pairwise precision and recall of "one person" over each video's tracks, and ids per true person, of the people
    ``reidentify`` makes with these bounds."""
    from tools.signals.tracks import reidentify

    tp = fp = fn = ids = people = 0
    for tracks, desc, who in videos.values():
        person = reidentify(tracks, desc, max_distance=strict, continuity_distance=continuity)
        for a, b in itertools.combinations(tracks, 2):
            one, made = who[a.track_id] == who[b.track_id], person[a.track_id] == person[b.track_id]
            tp, fp, fn = tp + (one and made), fp + (made and not one), fn + (one and not made)
        split = {}
        for t in tracks:
            split.setdefault(who[t.track_id], set()).add(person[t.track_id])
        ids, people = ids + sum(map(len, split.values())), people + len(split)
    return {"precision": round(tp / max(tp + fp, 1), 3), "recall": round(tp / max(tp + fn, 1), 3),
            "pairs made one wrongly": fp, "pairs left apart": fn, "ids per person": round(ids / max(people, 1), 3)}


def evaluate(mirrors: Path, split: str, work: Path, at: tuple[float, float] | None = None) -> dict:
    """The module doc's report for ``split``; ``at``: also the people made with these (strict, continuity) bounds."""
    from tools.signals.tracks import reidentify

    clips = bench(mirrors, split, work)
    videos, reproduced = {}, 0
    for video, spans in clips.items():
        tracks, desc, index_people = descriptors(video, work / "cache")
        who = {t.track_id: _person(t, spans, video) for t in tracks}
        videos[video] = (tracks, desc, who)
        made = reidentify(tracks, desc)
        reproduced += all(made[t.track_id] == p for t, p in zip(tracks, index_people, strict=True))
    dist, same = _pairs(videos)
    ckplus = json.loads(CKPLUS.read_text())
    far = {t: float((dist[~same] <= t).mean()) for t in GRID}
    loose = ckplus["continuity_threshold"]
    rows = [{**rates(dist, same, t), "people": people_made(videos, t, max(t, loose))} for t in GRID]
    result: dict = {"split": split, "videos": len(videos), "tracks": sum(len(v[0]) for v in videos.values()),
                    "same-person pairs": int(same.sum()), "different-person pairs": int((~same).sum()),
                    "videos whose index people the descriptors reproduce": reproduced, "grid": rows}
    if split == "dev":
        strict = min(ckplus["chosen_threshold"], max(t for t in GRID if far[t] <= MAX_FAR))
        continuity = min(loose, max(t for t in GRID if far[t] <= MAX_FAR_CONTINUITY))
        result["chosen"] = {"strict": strict, "continuity": continuity}
        at = at or (strict, continuity)
    for name, bounds in ((f"CK+ bounds ({ckplus['chosen_threshold']}, {loose})", (ckplus["chosen_threshold"], loose)),
                         *([(f"bounds {at}", at)] if at else [])):
        result[name] = people_made(videos, *bounds)
    return result


def main(argv: list[str] | None = None) -> int:
    """Measure (and on dev, choose) the re-identification bounds on recorded video; print and write JSON."""
    ap = argparse.ArgumentParser(prog="python -m studies.reid_recorded", description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git snapshots")
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    ap.add_argument("--work", type=Path, required=True, help="folder for the clips, joined videos and index cache")
    ap.add_argument("--at", type=float, nargs=2, metavar=("STRICT", "CONTINUITY"),
                    help="also report the people made with these bounds (dev: the chosen ones)")
    ap.add_argument("--json", type=Path, help="write the result here")
    args = ap.parse_args(argv)
    return report(lambda: evaluate(args.mirrors, args.split, args.work, tuple(args.at) if args.at else None),
                  args.json)


if __name__ == "__main__":
    sys.exit(main())
