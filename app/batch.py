"""Batch mode: the same questions about every video in a folder, on a worker pool or a Ray cluster.

    affectseek batch DIR --query "when does she feel left out?" [--query ...] [--out batch-out]
                         [--workers N] [--ray [ADDRESS]]

Each video is one task: its index is built (or loaded from the cache) once, then all queries run on it
in the same worker, whose models stay loaded for the next video. Every finished (video, query) pair is
appended to ``OUT/results.jsonl`` as soon as it is done, with the answer in ``OUT/answers/``; a rerun
skips the pairs already there, so a killed batch resumes where it stopped (``--retry-failed`` also
reruns the failed ones; ``memory.jsonl``). Bad videos are recorded as errors and do not stop the batch.
Settings (``--llm``, ``--top-k``, ...) also come from ``AFFECTSEEK_*`` variables and ``--config``
(``graphs.settings``), as for ``affectseek ask``.

Scale-out: ``--ray`` runs the same task function as Ray tasks, on a local Ray cluster started for the
run, or with ``--ray ADDRESS`` (e.g. ``auto`` or ``ray://head:10001``) on an existing cluster. Every
node then needs this package installed, and DIR, OUT and the cache directory on storage all nodes see.

Exit codes: 0 every pair answered; 3 some pairs failed (see their ``error`` in results.jsonl; the last line
names the first); 1 a model cannot load (the default weights not fetched: every video would fail alike, so the
batch stops and records nothing for the videos not done); 2 bad arguments or no videos found; 130 interrupted
(finished pairs are kept).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.batch_tasks import run_jobs
from memory.jsonl import JsonlLog, dict_record
from tools.core.argtypes import CommandParser, number

#: Extensions of the video files a folder is searched for: camcorders' MPEG-TS (.mts, .m2ts, .ts), phones' 3GP, Ogg
#: video and animated GIF among the common containers (a file without sound is read from its pictures).
VIDEO_EXTENSIONS = (".mp4", ".mov", ".mkv", ".avi", ".webm", ".m4v", ".mpg", ".mpeg", ".wmv", ".flv", ".ts", ".mts",
                    ".m2ts", ".3gp", ".ogv", ".gif")
RESULTS = "results.jsonl"


def find_videos(root: Path, recursive: bool = False) -> list[Path]:
    """Files under ``root`` whose extension is a video container's (``VIDEO_EXTENSIONS``), sorted."""
    pattern = "**/*" if recursive else "*"
    return sorted(p for p in root.glob(pattern) if p.is_file() and p.suffix.lower() in VIDEO_EXTENSIONS)


def read_results(path: Path) -> list[dict]:
    """Each (video, query) pair's latest record in ``results.jsonl``, in order of the pairs' first records: a pair
    retried (``--retry-failed``) counts once, as its latest run went. A line cut short by a kill is dropped (and removed
    from the file)."""
    last: dict[tuple[str, str], dict] = {}
    for r in JsonlLog(path).read(dict_record({"video", "query", "status"})):
        last[r["video"], r["query"]] = r  # a dict keeps a key where it was first set
    return list(last.values())


def plan(videos: list[Path], root: Path, queries: list[str], done: list[dict],
         retry_failed: bool) -> list[tuple[str, str, list[str]]]:
    """(path, key, queries still to answer) per video, skipping pairs recorded in ``done``."""
    skip = {(r["video"], r["query"]) for r in done if r["status"] == "ok" or not retry_failed}
    jobs = []
    for v in videos:
        key = v.relative_to(root).as_posix()
        todo = [q for q in queries if (key, q) not in skip]
        if todo:
            jobs.append((str(v), key, todo))
    return jobs


#: The settings ``batch`` takes as flags (``graphs.flags``); every other one from variables or ``--config``.
BATCH_SETTINGS = ("llm", "top_k", "use_audio", "device", "cache_dir", "quiet")


def build_parser(prog: str = "affectseek batch") -> argparse.ArgumentParser:
    """The ``batch`` command's parser; settings flags left out are absent from the result."""
    from graphs.flags import add_setting_flags

    p = CommandParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, help="folder of videos")
    p.add_argument("--query", action="append", default=[], help="a question; repeat for several")
    p.add_argument("--queries-file", type=Path, help="a text file with one question per line")
    p.add_argument("--out", type=Path, default=Path("batch-out"), help="results folder (default: batch-out)")
    p.add_argument("--workers", type=number(1, 64, integer=True), default=None,
                   help="local worker processes (default: one per 2 cores and 2.5 GiB of free memory)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run on Ray: a local cluster, or the cluster at ADDRESS (e.g. auto)")
    p.add_argument("--ray-cpus-per-task", type=number(0, 256, lo_open=True), default=2.0, help="CPUs Ray reserves per video (default 2)")
    p.add_argument("--recursive", action="store_true", help="also look in subfolders")
    p.add_argument("--retry-failed", action="store_true", help="rerun pairs recorded as failed")
    p.add_argument("--config", default=None, metavar="TOML", help="settings file (default $AFFECTSEEK_CONFIG)")
    s = p.add_argument_group("settings (also from AFFECTSEEK_* variables and --config)")
    add_setting_flags(p, BATCH_SETTINGS, target=s, helps={"quiet": "no progress bar or summary table"})
    return p


def _read_queries(args, err) -> list[str] | None:
    """The questions of ``--query`` and ``--queries-file``, or None after printing why they are unusable."""
    from tools.core.terminal import markup_safe as safe

    queries = [q.strip() for q in args.query]
    if args.queries_file:
        if not args.queries_file.is_file():
            err.print(f"error: {safe(args.queries_file)}: no such file")
            return None
        try:
            queries += [ln.strip() for ln in args.queries_file.read_text(encoding="utf-8").splitlines() if ln.strip()]
        except UnicodeDecodeError as exc:
            err.print(f"error: {safe(args.queries_file)}: not UTF-8 text (byte {exc.start}); save it as UTF-8")
            return None
    if not queries:
        err.print("error: give at least one --query (or --queries-file)")
        return None
    from graphs.pipeline import QueryError, check_query

    for n, query in enumerate(queries, 1):  # each as ``ask`` checks it, before any video is opened
        try:
            check_query(query)
        except QueryError as exc:
            err.print(f"error: question {n} of {len(queries)}: {safe(str(exc))}")
            return None
    return list(dict.fromkeys(queries))


def _check_folders(args, err) -> list[Path] | None:
    """The videos of ``args.dir`` once ``--out`` exists, or None after printing why not."""
    from tools.core.terminal import markup_safe as safe

    if not args.dir.is_dir():
        err.print(f"error: {safe(args.dir)}: not a folder")
        return None
    videos = find_videos(args.dir, args.recursive)
    if not videos:
        err.print(f"error: no video files in {safe(args.dir)} (extensions: {' '.join(VIDEO_EXTENSIONS)})")
        return None
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        err.print(f"error: --out {safe(args.out)}: exists and is not a folder")
        return None
    except OSError as exc:
        err.print(f"error: --out {safe(args.out)}: cannot create the folder ({safe(exc.strerror)})")
        return None
    return videos


def main(argv: list[str] | None = None, prog: str = "affectseek batch") -> int:
    """Run the batch command; returns the exit code."""
    args = build_parser(prog).parse_args(argv)
    from rich.console import Console

    from graphs.settings import SettingsError, settings_from_args
    from tools.core.terminal import markup_safe as safe

    err = Console(stderr=True, soft_wrap=True)
    try:
        settings = settings_from_args(args, args.config)
    except SettingsError as exc:
        err.print(f"error: {safe(exc)}")
        return 2
    from tools.core.runtime import DeviceError

    try:  # here, before any worker starts; a remote Ray cluster's GPUs are not this machine's to check
        if args.ray in (None, "local"):
            settings.check_device()
    except DeviceError as exc:
        err.print(f"error: {safe(exc)}")
        return 2
    queries = _read_queries(args, err)
    videos = _check_folders(args, err) if queries is not None else None
    if videos is None:
        return 2
    log = JsonlLog(args.out / RESULTS)
    done = read_results(log.path)
    jobs = plan(videos, args.dir, queries, done, args.retry_failed)
    if done:
        err.print(f"resuming: {len(done)} pair(s) already in {safe(log.path)}, {sum(len(q) for *_, q in jobs)} to do")
    from tools.core.registry import BackendUnavailableError

    try:
        run_jobs(jobs, len(queries), settings, args, log, err)
    except KeyboardInterrupt:
        err.print(f"interrupted: finished pairs are in {safe(log.path)}; rerun the same command to resume")
        return 130
    except BackendUnavailableError as exc:  # every video would fail alike: nothing recorded for them
        cause = getattr(exc, "cause", None) or exc  # a Ray task's error wraps the worker's
        err.print(f"error: {safe(str(cause).splitlines()[0])}")
        return 1
    results = read_results(log.path)
    failed = [r for r in results if r["status"] != "ok"]
    if not settings.quiet:
        _summary(results, Console())
    first = f" (first: {safe(failed[0]['video'])}: {safe(failed[0]['error'])})" if failed else ""
    err.print(f"{len(results) - len(failed)} answered, {len(failed)} failed{first}; results: {safe(log.path)}")
    return 3 if failed else 0


def _summary(results: list[dict], console) -> None:
    from rich.table import Table

    from tools.core.terminal import markup_safe as safe

    table = Table("video", "query", "status", "top moment")
    for r in results:
        if r["status"] == "ok":
            top = r["moments"][0] if r["moments"] else None
            cell = f"{top[0]:.1f}-{top[1]:.1f} s {top[2]} ({top[3]:.2f})" if top else "no moment found"
        else:
            cell = r["error"]
        table.add_row(safe(r["video"]), safe(r["query"]), r["status"], safe(cell))
    console.print(table)


if __name__ == "__main__":
    sys.exit(main())
