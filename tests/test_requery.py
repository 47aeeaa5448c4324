"""The verifier's loop back to the localizer, weak answers said plainly, and explicit abstention."""

from __future__ import annotations

import pytest

from agents.schema import Answer
from app.ask import main
from tests.conftest import SAMPLE

pytestmark = pytest.mark.slow


def test_unmet_support_requeries_twice_then_answers_with_weak_moments(cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does someone look disgusted?", "--min-support", "0.99", "--json", str(out),
                 "--cache-dir", str(cache_root), "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0
    answer = Answer.model_validate_json(out.read_text())
    assert answer.rounds == 3  # first search + 2 refined re-queries (--max-requery default)
    assert answer.candidates_rejected == answer.candidates_considered > 0
    assert answer.moments  # never empty when faces and speech were seen: the best ones, said to be weak
    assert answer.message.startswith("weak support: no candidate reached --min-support 0.99")
    assert "weak support" in printed
    nodes = [step.node for step in answer.trace]
    assert nodes == ["intent_interpreter", "person_grounder"] + ["candidate_localizer", "verifier", "query_refiner"] * 2 \
        + ["candidate_localizer", "verifier", "emotion_reasoner", "rationale_writer"]
    assert [s.elapsed_s for s in answer.trace] == sorted(s.elapsed_s for s in answer.trace)
    assert "re-query round 1" in answer.trace[4].decision and "re-query round 2" in answer.trace[7].decision


def test_max_requery_zero_stops_after_the_first_round_and_trace_streams(cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does someone look disgusted?", "--min-support", "0.99", "--max-requery", "0",
                 "--json", str(out), "--cache-dir", str(cache_root), "--quiet", "--trace"])
    assert code == 0
    assert Answer.model_validate_json(out.read_text()).rounds == 1
    err = capsys.readouterr().err
    for node in ("intent_interpreter", "candidate_localizer", "verifier", "emotion_reasoner", "rationale_writer"):
        assert f"{node}:" in err


def test_abstain_below_is_the_only_way_to_an_empty_answer(cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does someone look disgusted?", "--min-support", "0.99", "--abstain-below", "0.99",
                 "--max-requery", "0", "--json", str(out), "--cache-dir", str(cache_root), "--quiet"])
    assert code == 0
    answer = Answer.model_validate_json(out.read_text())
    assert answer.moments == []
    assert answer.message.startswith("no moment returned: every candidate's support was below --abstain-below 0.99")
    assert "no moment returned" in capsys.readouterr().out
