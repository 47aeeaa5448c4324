"""The work of ``affectseek batch`` (``app.batch``): one task per video, and the pools that run the tasks.

``process_video`` is the task: the video's index opened once, every question asked of it, one record per
question (its answer written under ``OUT/answers/``). ``run_jobs`` runs the tasks on local worker processes
(spawned, so each loads its own models) or as Ray tasks, appending each video's records to the results log
as soon as the video is done.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

from graphs.settings import Settings
from memory.jsonl import JsonlLog


def answer_name(video_key: str, query: str) -> str:
    """File name of one pair's answer: ``<video stem>-<12 hex of sha256(video key, query)>.json``."""
    digest = hashlib.sha256(json.dumps([video_key, query]).encode()).hexdigest()[:12]
    return f"{Path(video_key).stem}-{digest}.json"


def process_video(video: str, video_key: str, queries: list[str], settings: Settings, out_dir: str) -> list[dict]:
    """Answer ``queries`` about one video, its index opened once (``graphs.pipeline.open_index``, then
    ``ask`` per query); the unit of work of a worker or a Ray task.

    Returns one record per query: ``{"video", "query", "status": "ok", "answer": <file>, "moments":
    [[start_s, end_s, emotion, confidence], ...], "window": [start_s, end_s] or None (the part of the video the
    question names and the answer searched, ``Answer.window``), "seconds"}`` or ``{..., "status": "error", "error":
    <one line>}``. Never raises for a bad video or query: the error is the record.

    Raises:
        tools.core.registry.BackendUnavailableError: a model cannot load (weights not fetched): every video would
            fail alike, so the batch stops (``app.batch``) instead of recording the same error for each pair.
    """
    from tools.core.runtime import configure_runtime

    configure_runtime(settings.cache_dir)  # before the imports below load any native library
    from agents.llm import load_llm
    from graphs.pipeline import QueryError, ask, open_index
    from memory.cache import atomic_write_bytes
    from tools.core.media import VideoError
    from tools.core.registry import BackendUnavailableError

    cfg, knobs = settings.index_config(), settings.run_settings()
    records = []
    index = reasoner = None
    for i, query in enumerate(queries):
        t = time.perf_counter()
        base = {"video": video_key, "query": query}
        try:
            if index is None:  # opened once, for the first query; the others ask the same index
                index, reasoner = open_index(video, cfg, settings.cache_dir), load_llm(settings.llm)
            answer = ask(index, query, knobs, reasoner)
            answer.video = str(video)
        except BackendUnavailableError:
            raise
        except (VideoError, QueryError) as exc:
            records.append({**base, "status": "error", "error": str(exc).splitlines()[0]})
            if isinstance(exc, VideoError):  # the same video fails the same way for every query
                records += [{**records[-1], "query": q} for q in queries[i + 1:]]
                break
            continue
        except Exception as exc:  # noqa: BLE001 -- one bad item must not stop a batch; the record says so
            records.append({**base, "status": "error", "error": f"internal error: {type(exc).__name__}: {exc}"})
            continue
        name = answer_name(video_key, query)
        atomic_write_bytes(Path(out_dir) / "answers" / name, answer.model_dump_json(indent=2).encode())
        records.append({**base, "status": "ok", "answer": f"answers/{name}", "seconds": round(time.perf_counter() - t, 2),
                        "moments": [[m.start_s, m.end_s, m.emotion, m.confidence] for m in answer.moments],
                        "window": list(answer.window) if answer.window else None})
    return records


def _local_pool(jobs, settings: Settings, out_dir: Path, workers: int) -> Iterator[list[dict]]:
    from concurrent.futures import as_completed

    from tools.core.runtime import process_pool

    with process_pool(workers) as pool:
        futures = [pool.submit(process_video, path, key, qs, settings, str(out_dir)) for path, key, qs in jobs]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def _ray_pool(jobs, settings: Settings, out_dir: Path, address: str | None, cpus_per_task: float) -> Iterator[list[dict]]:
    import ray

    ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
             **({} if address else {"num_cpus": os.cpu_count()}))
    try:
        task = ray.remote(num_cpus=cpus_per_task, max_retries=1)(process_video)
        pending = [task.remote(path, key, qs, settings, str(out_dir)) for path, key, qs in jobs]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready[0])
    finally:
        ray.shutdown()


def default_workers() -> int:
    """Workers that fit this machine: one per 2 CPU cores and per 2.5 GiB of available memory (at least 1)."""
    cpus = os.cpu_count() or 1
    try:
        avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**30
    except (ValueError, OSError):
        avail = 4.0
    return max(1, min(cpus // 2, int(avail // 2.5)))


def run_jobs(jobs, n_queries: int, settings: Settings, args, log: JsonlLog, err) -> None:
    """Run ``jobs`` on the local pool or Ray, appending each video's records to ``log`` as it finishes."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    workers = args.workers or default_workers()
    if not args.ray and workers > 1:  # split the cores between workers instead of oversubscribing them
        os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // workers)))
    pool = (_ray_pool(jobs, settings, args.out, None if args.ray == "local" else args.ray, args.ray_cpus_per_task)
            if args.ray else _local_pool(jobs, settings, args.out, workers))
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, disable=settings.quiet)
    with progress:
        task = progress.add_task(f"{len(jobs)} video(s), {n_queries} question(s)", total=sum(len(q) for *_, q in jobs))
        for records in pool if jobs else ():
            log.append(records)
            progress.update(task, advance=len(records))
