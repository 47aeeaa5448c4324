"""The evaluation harness end to end on ../shared/bench/dev.jsonl, and bench building on real clips."""

from __future__ import annotations

import json
import shutil
import threading

import pytest

from evals import build_bench, report
from evals import run as eval_run
from evals.bench import BenchError, load_bench
from evals.evaluate import evaluate
from evals.methods import PredictedMoment, Prediction
from tests.conftest import SAMPLE, shared_file, shared_media


def test_bench_errors_name_the_line(tmp_path):
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"id": "a", "video": "v.mp4", "query": "q", "moments": [{"start_s": 1, "end_s": 2, '
                   '"emotion": "happiness"}]}\n{"id": "b", "video": "v.mp4", "query": "q", "moments": '
                   '[{"start_s": 3, "end_s": 2, "emotion": "happiness"}]}\n')
    with pytest.raises(BenchError, match=r"b.jsonl:2: moments.0: .*end_s must be greater"):
        load_bench(bad)
    bad.write_text("{not json\n")
    with pytest.raises(BenchError, match=r":1: not JSON"):
        load_bench(bad)


def test_perfect_and_disjoint_predictions_score_as_expected():
    items = load_bench(shared_file("bench/dev.jsonl"))
    perfect = {i.id: Prediction(id=i.id, method="oracle", wall_s=0.0, moments=[
        PredictedMoment(start_s=m.start_s, end_s=m.end_s, emotion=m.emotion, score=1.0) for m in i.moments])
        for i in items}
    m = evaluate(items, perfect)
    assert m["localization"] == {"R1@0.3": 1.0, "R1@0.5": 1.0, "R1@0.7": 1.0, "mIoU": 1.0, "mAP": 1.0, "R5@0.5": 1.0,
                                 "Joint": 1.0}
    assert m["emotion"]["accuracy"] == 1.0 and m["emotion"]["macro_f1"] == 1.0
    far = {i.id: Prediction(id=i.id, method="x", wall_s=0.0, moments=[
        PredictedMoment(start_s=100.0, end_s=101.0, emotion="anger", score=1.0)]) for i in items}
    m = evaluate(items, far)
    assert m["localization"]["mIoU"] == 0.0 and m["emotion"]["n"] == 0
    # a failed item is scored as a miss, but neither predicted nor costed: its wall time was never measured
    first, *rest = items
    timed = {i.id: perfect[i.id].model_copy(update={"wall_s": 10.0, "tool_calls": 4, "frames": 8}) for i in rest}
    timed[first.id] = Prediction(id=first.id, method="oracle", moments=[], wall_s=0.0, error="VideoError: bad video")
    m = evaluate(items, timed)
    assert m["n_items"] == len(items) and m["n_predicted"] == len(items) - 1
    assert m["cost_per_item"] == {"wall_s": 10.0, "tool_calls": 4.0, "frames": 8.0}
    assert m["localization"]["R1@0.5"] == round((len(items) - 1) / len(items), 4)


#: A lock this process holds while a study's pool runs (``test_a_studys_workers_do_not_inherit_a_held_lock``).
_HELD = threading.Lock()


def _held_lock_is_free() -> bool:
    """In a pool's worker: whether ``_HELD`` can be taken within a second."""
    free = _HELD.acquire(timeout=1.0)
    if free:
        _HELD.release()
    return free


def test_a_studys_workers_do_not_inherit_a_held_lock():
    """A lock held in this process when a study's pool starts (as MediaPipe's threads hold theirs) is free in its
    workers: they start afresh instead of as forks, where such a lock stays held for ever (``evals/RESULTS.md``
    section 100)."""
    from tools.core.runtime import process_pool

    with _HELD, process_pool(1) as pool:
        assert pool.submit(_held_lock_is_free).result(timeout=120)


def test_two_runs_in_one_process_each_log_to_their_own_file(tmp_path, cache_root):
    """``evals.run.main`` twice in one process (a script, the tests): the second run's lines (here its resuming)
    reach its own ``run.log`` only, and no handler is left on the logger after a run."""
    import logging

    bench = shared_file("bench/dev.jsonl")
    first, second = tmp_path / "first", tmp_path / "second"
    for out in (first, second, second):  # the third call resumes the second run
        assert eval_run.main(["--bench", str(bench), "--method", "uniform", "--out", str(out),
                              "--cache-dir", str(cache_root)]) == 0
        assert not logging.getLogger("evals.run").handlers
    assert "resuming: 3 of 3" in (second / "run.log").read_text()
    assert "resuming" not in (first / "run.log").read_text()


def _two_item_bench(folder):
    """A bench of two items asking about the talking head: ``good.mp4`` (the talking head) and ``bad.mp4`` (bytes
    that are no video)."""
    folder.mkdir()
    shutil.copy(shared_media("WDA_KatieHill_000.mp4"), folder / "good.mp4")
    (folder / "bad.mp4").write_bytes(b"not a video")
    lines = [{"id": name, "video": f"{name}.mp4", "query": "when does she smile?",
              "moments": [{"start_s": 0.0, "end_s": 4.0, "emotion": "happiness"}]} for name in ("good", "bad")]
    (folder / "b.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder / "b.jsonl"


def test_a_run_whose_items_fail_says_so_and_retries_them(tmp_path, cache_root, capsys):
    """An item whose video does not decode is scored as a miss, and the run exits 3 with one line naming it (before,
    it exited 0 with the low scores alone); after the video is mended, a rerun with ``--retry-failed`` predicts that
    item again, and only it."""
    bench = _two_item_bench(tmp_path / "bench")
    out = tmp_path / "run"
    args = ["--bench", str(bench), "--method", "uniform", "--out", str(out), "--cache-dir", str(cache_root)]
    assert eval_run.main(args) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: 1 of 2 items failed") and "bad: VideoError" in err[0]
    assert json.loads((out / "metrics.json").read_text())["n_items"] == 2
    assert eval_run.main(args) == 3  # resuming keeps the failure unless asked
    shutil.copy(shared_media("WDA_KatieHill_000.mp4"), bench.parent / "bad.mp4")
    assert eval_run.main([*args, "--retry-failed"]) == 0
    lines = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == ["good", "bad", "bad"] and lines[-1]["error"] is None
    assert json.loads((out / "metrics.json").read_text())["localization"]["R1@0.5"] == 1.0


def test_a_model_that_cannot_load_stops_the_run_at_once(tmp_path):
    """Without the default weights every item would fail alike: the run stops at the first with the one line that
    names the fetch command, exit 1, and records no prediction, so a rerun after the fetch starts afresh."""
    from tests.conftest import run_module

    bench = _two_item_bench(tmp_path / "bench")
    out = tmp_path / "run"
    proc = run_module("evals.run", "--bench", str(bench), "--method", "graph", "--out", str(out), "--cache-dir",
                      str(tmp_path / "cache"), timeout=300, env={"AFFECTSEEK_MODEL_CACHE": str(tmp_path / "no-models")})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "affectseek models --fetch defaults" in lines[0]
    assert not (out / "predictions.jsonl").exists() or not (out / "predictions.jsonl").read_text()
    assert not (out / "metrics.json").exists()


@pytest.mark.slow
def test_run_resume_and_report_on_the_dev_bench(tmp_path, cache_root, capsys):
    bench = shared_file("bench/dev.jsonl")
    runs = []
    for method in ("uniform", "graph"):
        out = tmp_path / method
        assert eval_run.main(["--bench", str(bench), "--method", method, "--out", str(out),
                              "--cache-dir", str(cache_root)]) == 0
        preds = (out / "predictions.jsonl").read_text().splitlines()
        assert [json.loads(p)["id"] for p in preds] == ["ham-audience", "ham-animated", "kh-new"]
        metrics = json.loads((out / "metrics.json").read_text())
        config = json.loads((out / "config.json").read_text())
        assert metrics["n_items"] == 3 and config["method"] == method and config["seed"] == 0
        assert set(metrics["localization"]) == {"R1@0.3", "R1@0.5", "R1@0.7", "mIoU", "mAP", "R5@0.5", "Joint"}
        assert (out / "moment_detr_predictions.jsonl").read_text().count("pred_relevant_windows") == 3
        runs.append(out)
    graph = json.loads((runs[1] / "metrics.json").read_text())
    expression = json.loads((runs[1] / "config.json").read_text())["models"]["expression"]
    assert expression.startswith("mean(faceres:") and "face8-head:" in expression  # the default reader, named
    assert json.loads((runs[1] / "config.json").read_text())["index_config"]["voice_backend"] == "voice8"
    assert graph["rationale"]["grounding"] == 1.0  # every cited evidence id resolves in the cache
    # resume: a second run over the same --out predicts nothing again
    assert eval_run.main(["--bench", str(bench), "--method", "graph", "--out", str(runs[1]),
                          "--cache-dir", str(cache_root)]) == 0
    assert len((runs[1] / "predictions.jsonl").read_text().splitlines()) == 3
    assert "resuming: 3 of 3" in (runs[1] / "run.log").read_text()
    capsys.readouterr()
    assert report.main([str(r) for r in runs] + ["--out", str(tmp_path / "report")]) == 0
    table = (tmp_path / "report" / "results.md").read_text()
    assert "| uniform | uniform | 3 |" in table and "| graph | graph | 3 |" in table
    for png in ("r1.png", "confusion.png", "cost.png"):
        assert (tmp_path / "report" / png).read_bytes()[:4] == b"\x89PNG"
    page = (tmp_path / "report" / "results.html").read_text()
    assert page.count("data:image/png;base64,") == 3 and "<td>graph</td>" in page
    assert (tmp_path / "report" / "results.csv").read_text().startswith("run,method,items,R1@0.3")


@pytest.mark.slow
def test_build_bench_from_csv_on_real_clips(tmp_path):
    clips = tmp_path / "clips"
    clips.mkdir()
    shutil.copy(SAMPLE, clips / "hamilton_short.mp4")
    shutil.copy(shared_media("WDA_KatieHill_000.mp4"), clips / "talk.mp4")
    # the audience laughs at 8-10 s of hamilton_short.mp4 (watched); the talking head is calm throughout
    (clips / "labels.csv").write_text("file,emotion,start_s,end_s\nhamilton_short.mp4,happy,8.0,10.0\n"
                                      "talk.mp4,neutral,,\n")
    assert build_bench.main([str(clips), "--out", str(tmp_path / "bench"), "--seed", "0"]) == 0
    items = {i.id: i for i in load_bench(tmp_path / "bench" / "bench.jsonl")}
    assert set(items) == {"long_000-happiness", "long_000-neutral"}
    from tools.core.media import probe

    video = items["long_000-happiness"].video_path(tmp_path / "bench" / "bench.jsonl")
    duration = probe(video).duration_s
    # 10 s of the sample (its picture starts at 0.84 s, after its sound: the first frame is held until then, so the
    # sound stays with the picture and a label's times are the file's) + 8.0 s talk, 25 fps
    assert duration == pytest.approx(10.0 + 8.0, abs=0.1)
    h = items["long_000-happiness"].moments[0]
    n = items["long_000-neutral"].moments[0]
    clip_order_first = h.start_s < n.start_s
    if clip_order_first:
        assert (h.start_s, h.end_s) == (8.0, pytest.approx(10.0, abs=0.05))
        assert n.start_s == pytest.approx(10.0, abs=0.05) and n.end_s == pytest.approx(duration, abs=0.05)
    else:
        assert (n.start_s, n.end_s) == (0.0, pytest.approx(8.0, abs=0.05))
        assert h.start_s == pytest.approx(16.0, abs=0.05)
    assert items["long_000-happiness"].query in build_bench.TEMPLATES["happiness"]


def test_dataset_file_name_readers(tmp_path):
    for name in ("01-01-03-01-01-01-12.mp4", "02-01-02-02-01-02-03.mp4", "03-01-05-01-01-01-01.wav",
                 "1001_DFA_ANG_XX.flv", "1002_IEO_NEU_HI.flv"):
        (tmp_path / name).write_bytes(b"")
    rav = {c.path.name: c.emotion for c in build_bench.read_ravdess(tmp_path)}
    assert rav == {"01-01-03-01-01-01-12.mp4": "happiness", "02-01-02-02-01-02-03.mp4": "neutral"}  # calm -> neutral
    crema = {c.path.name: c.emotion for c in build_bench.read_cremad(tmp_path)}
    assert crema == {"1001_DFA_ANG_XX.flv": "anger", "1002_IEO_NEU_HI.flv": "neutral"}
    for name in ("02-03-05_01.mp4", "07-01-02_01.mp4", "07-01-09_01.mp4"):  # 09: no such emotion code
        (tmp_path / "jav" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "jav" / name).write_bytes(b"")
    javanese = {c.path.name: c.emotion for c in build_bench.read_javanese(tmp_path / "jav")}
    assert javanese == {"02-03-05_01.mp4": "fear", "07-01-02_01.mp4": "sadness"}
    people = [c.person for reader, folder in ((build_bench.read_ravdess, tmp_path), (build_bench.read_cremad, tmp_path),
                                              (build_bench.read_javanese, tmp_path / "jav")) for c in reader(folder)]
    assert people == ["12", "03", "1001", "1002", "02", "07"]
    from evals.data.javanese import TEST_PEOPLE, parse
    assert parse("02-03-05_01.mp4") == ("02", "03", "fear") and "02" in TEST_PEOPLE and "07" not in TEST_PEOPLE
    (tmp_path / "meld.csv").write_text("Sr No.,Utterance,Speaker,Emotion,Sentiment,Dialogue_ID,Utterance_ID\n"
                                       "1,Oh my God!,Rachel,surprise,positive,0,3\n")
    (tmp_path / "dia0_utt3.mp4").write_bytes(b"")
    meld = build_bench.read_csv(tmp_path, tmp_path / "meld.csv")
    assert [(c.path.name, c.emotion) for c in meld] == [("dia0_utt3.mp4", "surprise")]
    (tmp_path / "bad.csv").write_text("dia0_utt3.mp4,bored\n")
    with pytest.raises(ValueError, match=r"bad.csv:1: unknown emotion label 'bored'"):
        build_bench.read_csv(tmp_path, tmp_path / "bad.csv")


def test_videos_by_person_show_one_person_each_and_keep_every_clip():
    import random
    from pathlib import Path

    clips = [build_bench.LabelledClip(Path(f"{p}-{i}.mp4"), "neutral", person=p) for p in "abc" for i in range(5)]
    videos = build_bench.groups(clips, 3, random.Random(0), by_person=True)
    assert [len(v) for v in videos] == [3, 2, 3, 2, 3, 2]
    assert all(len({c.person for c in v}) == 1 for v in videos)
    assert sorted(c.path.name for v in videos for c in v) == sorted(c.path.name for c in clips)
    mixed = build_bench.groups(clips, 3, random.Random(0))
    assert any(len({c.person for c in v}) > 1 for v in mixed)
    with pytest.raises(ValueError, match="do not name the person"):
        build_bench.groups([build_bench.LabelledClip(Path("x.mp4"), "neutral")], 3, random.Random(0), by_person=True)


def test_a_new_bench_format_is_one_registration(tmp_path, monkeypatch, capsys):
    """A CSV bench (id, video, query, start_s, end_s, emotion per row) registered from outside the harness:
    ``evals.run`` offers it and scores it like the JSON Lines bench, with no change to ``evals.run``."""
    import csv

    from evals.bench import BenchItem
    from evals.evaluate import moment_format
    from evals.formats import FORMATS, register_format

    dev = load_bench(shared_file("bench/dev.jsonl"))
    bench = tmp_path / "dev.csv"
    with bench.open("w", newline="") as f:
        rows = csv.writer(f)
        for i in dev:
            m = i.moments[0]
            rows.writerow([i.id, str(i.video_path(shared_file("bench/dev.jsonl"))), i.query, m.start_s, m.end_s, m.emotion])

    def load(args, labels):
        with open(args.bench, newline="") as f:
            return [BenchItem(id=r[0], video=r[1], query=r[2], moments=[
                {"start_s": float(r[3]), "end_s": float(r[4]), "emotion": r[5]}]) for r in csv.reader(f)]

    monkeypatch.setitem(FORMATS, "csv", None)  # removed again after the test
    register_format(moment_format("csv", "id, video, query, start_s, end_s, emotion per row", "AffectNet-8", load))
    out = tmp_path / "run"
    assert eval_run.main(["--bench-format", "csv", "--bench", str(bench), "--method", "random", "--out", str(out)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["n_items"] == len(dev) == 3 and json.loads((out / "config.json").read_text())["bench_format"] == "csv"
    assert metrics["n_predicted"] == 3 and "| all |" in (out / "results.md").read_text()
    capsys.readouterr()


def test_affectseek_eval_takes_its_settings_from_the_environment_and_the_config_file(tmp_path, monkeypatch, capsys):
    """``affectseek eval`` reads ``AFFECTSEEK_*`` variables and the TOML config as ``ask`` does; a flag wins; a bad
    value is one line, exit 2."""
    from app.cli import main as cli

    bench = str(shared_file("bench/dev.jsonl"))

    def top_k(out: str, *extra: str) -> int:
        assert cli(["eval", "--bench", bench, "--method", "random", "--out", str(tmp_path / out), *extra]) == 0
        return json.loads((tmp_path / out / "config.json").read_text())["top_k"]

    monkeypatch.setenv("AFFECTSEEK_TOP_K", "3")
    assert top_k("env") == 3
    assert top_k("flag", "--top-k", "2") == 2
    monkeypatch.delenv("AFFECTSEEK_TOP_K")
    config = tmp_path / "affectseek.toml"
    config.write_text("top_k = 4\n")
    assert top_k("file", "--config", str(config)) == 4
    assert top_k("default") == 5
    monkeypatch.setenv("AFFECTSEEK_TOP_K", "0")
    capsys.readouterr()
    assert cli(["eval", "--bench", bench, "--method", "random", "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: top_k") and not (tmp_path / "bad").exists()


def test_the_summary_scores_each_run_top_moment_and_counts_an_unanswered_item_as_a_miss(tmp_path):
    from evals.summary import paired, summarise

    bench = tmp_path / "bench.jsonl"
    items = [{"id": f"v{v}-{e}", "video": f"videos/v{v}.mp4", "query": "q",
              "moments": [{"start_s": 10.0 * k, "end_s": 10.0 * k + 4, "emotion": e}]}
             for v in range(4) for k, e in enumerate(["anger", "fear"])]
    bench.write_text("".join(json.dumps(i) + "\n" for i in items))
    run = tmp_path / "run"
    run.mkdir()
    preds = {"v0-anger": (0.0, 4.0, "anger"), "v1-anger": (0.5, 4.0, "fear"), "v2-fear": (30.0, 34.0, "fear"),
             "v3-fear": (10.0, 14.0, "fear")}  # right; place only; elsewhere; right (v0-fear, ... unanswered)
    (run / "predictions.jsonl").write_text("".join(
        json.dumps({"id": i, "moments": [{"start_s": s, "end_s": e, "emotion": em}]}) + "\n"
        for i, (s, e, em) in preds.items()))
    got = summarise(bench, run)
    assert got["n"] == 8 and got["videos"] == 4 and got["interval_over"] == "videos"
    assert got["R1@0.5"][0] == 0.375 and got["Joint"][0] == 0.25
    assert got["Joint"][1] <= 0.25 <= got["Joint"][2]
    # answered: v0-anger, v2-fear, v3-fear name their labelled emotion (two of them in place), v1-anger does not
    assert got["by_label_read"] == {"read": [3, 2], "not_read": [1, 1]}
    # a second moment named as labelled (any case) counts; an empty answer is unanswered, in neither half
    second = tmp_path / "second"
    second.mkdir()
    (second / "predictions.jsonl").write_text("".join(json.dumps(p) + "\n" for p in [
        {"id": "v1-anger", "moments": [{"start_s": 0.5, "end_s": 4.0, "emotion": "fear"},
                                       {"start_s": 20.0, "end_s": 24.0, "emotion": "Anger"}]},
        {"id": "v0-anger", "moments": []}]))
    assert summarise(bench, second)["by_label_read"] == {"read": [1, 1], "not_read": [0, 0]}
    # a second run that names v1-anger's emotion too and misses v3-fear: one Joint gained, one of each lost
    other = tmp_path / "other"
    other.mkdir()
    preds.update({"v1-anger": (0.5, 4.0, "anger"), "v3-fear": (40.0, 44.0, "fear")})
    (other / "predictions.jsonl").write_text("".join(
        json.dumps({"id": i, "moments": [{"start_s": s, "end_s": e, "emotion": em}]}) + "\n"
        for i, (s, e, em) in preds.items()))
    from evals.summary import main

    assert main(["--bench", str(bench), "--run", f"a={run}", "--run", f"a={other}"]) == 2  # one name, two runs
    diff = paired(bench, other, run)
    assert diff["gained_lost"] == {"R1@0.5": [0, 1], "Joint": [1, 1]}
    assert diff["R1@0.5"][0] == -0.125 and diff["Joint"][0] == 0.0
    assert diff["Joint"][1] <= 0.0 <= diff["Joint"][2]


def test_the_summary_ends_a_run_that_is_not_a_run_folder_in_one_line(tmp_path, capsys):
    """A run given as its predictions file, or a folder whose predictions are not records with an id, is a usage error
    of one line (exit 2), not a traceback."""
    from evals.summary import main

    bench = tmp_path / "bench.jsonl"
    bench.write_text(json.dumps({"id": "a", "video": "v.mp4", "query": "when?",
                                 "moments": [{"start_s": 0.0, "end_s": 2.0, "emotion": "anger"}]}) + "\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "predictions.jsonl").write_text(json.dumps({"moments": []}) + "\n")
    for given, said in ((run / "predictions.jsonl", "not a run's folder"), (run, "predictions.jsonl:1: expected")):
        assert main(["--bench", str(bench), "--run", f"a={given}"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and said in err and err.count("\n") == 1, err


def test_per_emotion_joint_needs_the_right_place_and_the_asked_emotion(tmp_path):
    """``studies.per_emotion.scores``: an item counts for R1@0.5 when its top moment's tIoU is at least 0.5, and for
    Joint when that moment also names the item's emotion; ``named`` counts what the top moments name per asked
    emotion, whatever their place."""
    from studies.per_emotion import scores

    bench = tmp_path / "bench.jsonl"
    items = [("a", "anger"), ("b", "anger"), ("c", "fear")]
    bench.write_text("".join(json.dumps({"id": i, "video": "v.mp4", "query": "when?", "moments": [
        {"start_s": 0.0, "end_s": 2.0, "emotion": e}]}) + "\n" for i, e in items))
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.json").write_text(json.dumps({"per_item": [
        {"id": "a", "tIoU_top1": 0.8}, {"id": "b", "tIoU_top1": 0.6}, {"id": "c", "tIoU_top1": 0.2}]}))
    named = {"a": "anger", "b": "surprise", "c": "fear"}
    (run / "predictions.jsonl").write_text("".join(json.dumps({"id": i, "moments": [{"emotion": named[i]}]}) + "\n"
                                                   for i, _ in items))
    got = scores(str(bench), [str(run)])["run"]
    assert got["by_emotion"]["anger"] == {"n": 2, "R1@0.5": 1.0, "Joint": 0.5}
    assert got["by_emotion"]["fear"] == {"n": 1, "R1@0.5": 0.0, "Joint": 0.0}
    assert got["by_emotion"]["all"]["Joint"] == round(1 / 3, 3)
    assert got["named"] == {"fear": {"fear": 1}, "anger": {"anger": 1, "surprise": 1}} and got["empty"] == 0


def test_the_javanese_split_is_by_person(tmp_path):
    """``evals.data.javanese.rows`` reads the clips of a snapshot (a bare git directory, as the fetch tool leaves it):
    the even-numbered people are test, the odd-numbered development; a name outside the set's pattern is skipped."""
    import subprocess

    from evals.data.javanese import FOLDER, REPOSITORY, rows

    work = tmp_path / "work"
    (work / FOLDER).mkdir(parents=True)
    for name in ("01-01-03_01.mp4", "02-04-06_01.mp4", "10-02-01_01.mp4", "notes.txt"):
        (work / FOLDER / name).write_bytes(b"x")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "clips"], check=True)
    (tmp_path / "mirrors" / REPOSITORY).mkdir(parents=True)
    shutil.move(str(work / ".git"), str(tmp_path / "mirrors" / REPOSITORY / "repo"))
    test = rows(tmp_path / "mirrors", "test")
    assert [(p, lab, who) for _, p, lab, who in test] == [(f"{FOLDER}/02-04-06_01.mp4", "anger", "javanese-02"),
                                                        (f"{FOLDER}/10-02-01_01.mp4", "neutral", "javanese-10")]
    assert [who for *_, who in rows(tmp_path / "mirrors", "dev")] == ["javanese-01"]
    with pytest.raises(ValueError, match="split must be dev or test"):
        rows(tmp_path / "mirrors", "train")
    with pytest.raises(FileNotFoundError, match="fetch github:2black0/video-emotion-recognition-javanese"):
        rows(tmp_path / "nothing", "dev")


def test_goemotions_keeps_single_group_comments_in_the_sets_own_split(tmp_path):
    from evals.data.sources import set_records

    (tmp_path / "data" / "ekman").mkdir(parents=True)
    (tmp_path / "data" / "ekman" / "train.tsv").write_text(  # the repository's rows: text, Ekman group ids, comment id
        "I can't stop smiling today\t3\tc1\nThat smell made me gag\t1\tc2\nWhat?! No way\t6,3\tc3\n")
    (tmp_path / "data" / "ekman" / "test.tsv").write_text("I am so done with this\t0\tc4\n")
    records = {name: rec for name, _, rec in set_records("goemotions", tmp_path)}
    assert {name: (r["label"], r["split"], r["fold"]) for name, r in records.items()} == {
        "train/c1.txt": ("happiness", "dev", "train"), "train/c2.txt": ("disgust", "dev", "train"),
        "test/c4.txt": ("anger", "test", "test")}  # the comment raters put in two groups is left out
    assert records["train/c2.txt"]["text"] == "That smell made me gag" and records["train/c1.txt"]["raw_label"] == "joy"



def test_the_report_draws_a_confusion_matrix_of_a_run_in_another_label_set(tmp_path):
    """A run scored in VQAU-13 (``--labels VQAU-13``) has a 13 x 13 confusion matrix; the report drew 8 ticks for
    any run and stopped on it."""
    from agents.taxonomy import load_taxonomy
    from evals.metrics import emotion_scores
    from evals.report import plot_confusion

    names = load_taxonomy("VQAU-13").names
    run = tmp_path / "vqau"
    run.mkdir()
    emotion = emotion_scores([names[0], names[5], names[12]], [names[0], names[3], names[12]], names)
    assert len(emotion["labels"]) == 13
    (run / "metrics.json").write_text(json.dumps({"emotion": emotion}))
    plot_confusion([run], tmp_path / "confusion.png")
    assert (tmp_path / "confusion.png").read_bytes()[:4] == b"\x89PNG"
