"""Multiple-choice questions: --options on the CLI, the trace's tags and citations, the mcq bench and its metrics."""

from __future__ import annotations

import json

import pytest

from agents.choice import check_choice
from agents.schema import Answer, OptionChoice, ReasoningStep
from evals import run as eval_run
from evals.bench import BenchError
from evals.mcq import load_mcq
from evals.metrics import trace_structure
from tests.conftest import REPO, SAMPLE, run_cli

BENCH = REPO / "tests" / "data" / "mcq" / "sample.jsonl"


def test_mcq_bench_reads_letters_and_names_the_bad_line(tmp_path):
    items = load_mcq(BENCH)
    assert [i.answer for i in items] == [0, 2, 1]  # "C" is read as index 2
    assert items[1].trace[-1].external_knowledge and items[1].trace[-1].modality == "n/a"
    bad = tmp_path / "b.jsonl"
    bad.write_text(BENCH.read_text().splitlines()[0] + "\n" + json.dumps(
        {"id": "x", "video": "v.mp4", "question": "q?", "options": ["a", "b"], "answer": 2}) + "\n")
    with pytest.raises(BenchError, match=r"b.jsonl:2: item: .*answer must index one of the 2 options"):
        load_mcq(bad)
    bad.write_text(json.dumps({"id": "x", "video": "v.mp4", "question": "q?", "options": ["a", "b", "A"], "answer": 0}))
    with pytest.raises(BenchError, match=r"b.jsonl:1: item: .*answer options 1 and 3 say the same"):
        load_mcq(bad)


def test_options_that_read_the_same_are_refused_before_the_video_is_read(tmp_path, capsys):
    from app.ask import main

    cache = tmp_path / "cache"
    assert main([str(SAMPLE), "how does the audience react?", "--options", "They laugh", "They boo", " they  LAUGH ",
                 "--cache-dir", str(cache)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: answer options 1 and 3 say the same (case and spacing aside); give distinct options"]
    assert not any(cache.rglob("*.json"))  # no index was built


def test_a_failed_item_is_neither_answered_nor_right():
    from evals.mcq import McqPrediction, evaluate_mcq

    items = load_mcq(BENCH)
    preds = {items[0].id: McqPrediction(id=items[0].id, method="graph", option=items[0].answer, wall_s=1.0),
             items[1].id: McqPrediction(id=items[1].id, method="graph", option=None, wall_s=0.1,
                                        error="VideoError: no such file")}
    metrics = evaluate_mcq(items, preds)
    assert (metrics["n_items"], metrics["n_predicted"], metrics["accuracy"]) == (3, 1, round(1 / 3, 4))
    assert [row["predicted"] for row in metrics["per_item"]] == [items[0].answer, None, None]


def test_social_genome_trace_structure_counts():
    pred = [("visual", False), ("visual", False), ("n/a", False)]
    ref = [("visual", False), ("verbal", False), ("n/a", True)]
    scores = trace_structure(pred, ref)
    assert scores["difference_sequence"] == pytest.approx(1 - 1 / 3)  # one substitution in three tags
    assert scores["all_modality_steps"] == 2.0  # visual and n/a in both
    assert (scores["visual_steps"], scores["verbal_steps"], scores["vocal_steps"]) == (1.0, 1.0, 0.0)
    assert scores["external_knowledge_steps"] == 1.0 and scores["num_steps"] == 0.0


def test_a_choice_must_cite_observed_evidence_and_name_an_option():
    ok = OptionChoice(option=1, steps=[ReasoningStep(modality="verbal", text="said", evidence_ids=["c0.t0"]),
                                       ReasoningStep(modality="n/a", text="so B", external_knowledge=True)])
    check_choice(ok, 2, {"c0.t0"})
    with pytest.raises(ValueError, match="index in 0..1"):
        check_choice(ok.model_copy(update={"option": 2}), 2, {"c0.t0"})
    with pytest.raises(ValueError, match="unknown evidence ids"):
        check_choice(ok, 2, {"c1.v0"})
    uncited = OptionChoice(option=0, steps=[ReasoningStep(modality="visual", text="a smile")])
    with pytest.raises(ValueError, match="visual step must cite"):
        check_choice(uncited, 2, set())


@pytest.mark.slow
def test_cli_options_choose_what_was_said_with_a_grounded_trace(tmp_path, cache_root):
    out = tmp_path / "a.json"
    options = ["He refuses to work", "He says it should be done a lot harder and smarter", "He is on vacation"]
    proc = run_cli(str(SAMPLE), "What does the performer say about working?", "--options", *options,
                   "--json", str(out), "--cache-dir", str(cache_root), "--quiet")
    assert proc.returncode == 0, proc.stderr
    answer = Answer.model_validate_json(out.read_text())
    assert answer.options == options and answer.choice.option == 1 and answer.choice.text == options[1]
    observed = {e.id: e for m in answer.moments for e in m.evidence}
    cited = [i for s in answer.choice.steps for i in s.evidence_ids]
    assert cited and all(i in observed for i in cited)
    assert any(s.modality == "verbal" and "working a lot harder" in s.text for s in answer.choice.steps)
    assert "answer: (B) He says it should be done a lot harder and smarter" in proc.stdout
    assert answer.trace[-1].node == "option_chooser"
    one = run_cli(str(SAMPLE), "what does he say?", "--options", "only one", "--cache-dir", str(cache_root))
    assert one.returncode == 2 and one.stderr.strip().splitlines() == [
        "error: --options needs 2 to 10 answer options; got 1"]


@pytest.mark.slow
def test_evals_run_scores_the_mcq_bench_with_accuracy_and_trace_metrics(tmp_path, cache_root, capsys):
    out = tmp_path / "run"
    assert eval_run.main(["--bench-format", "mcq", "--bench", str(BENCH), "--method", "graph", "--out", str(out),
                          "--cache-dir", str(cache_root)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    by_id = {p["id"]: p for p in metrics["per_item"]}
    assert by_id["ham-said"]["predicted"] == 0 and by_id["ham-hands"]["predicted"] == 2
    assert metrics["n_traces_scored"] == 3 and {"similarity_trace", "difference_sequence", "num_steps",
                                                "external_knowledge_steps"} <= set(metrics["trace"])
    assert "| accuracy |" in (out / "results.md").read_text()
    assert eval_run.main(["--bench-format", "mcq", "--bench", str(BENCH), "--method", "clip_only",
                          "--out", str(tmp_path / "x")]) == 2
    assert "--method clip_only does not answer --bench-format mcq benches; use graph or random" in capsys.readouterr().err


@pytest.mark.slow
def test_report_shows_the_label_set_the_reading_and_the_chosen_option(tmp_path, cache_root):
    from app.ask import main

    html = tmp_path / "r.html"
    assert main([str(SAMPLE), "when does someone react with joy?", "--options", "They laugh and smile", "They boo",
                 "--labels", "VQAU-13", "--report", str(html), "--cache-dir", str(cache_root), "--quiet"]) == 0
    page = html.read_text()
    assert "labels VQAU-13" in page and "answer: They laugh and smile</b> (option 1 of 2)" in page
    assert "<b>Joy</b> (read as happiness)" in page
