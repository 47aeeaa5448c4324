"""The verifier's loop back to the localizer, and a plainly stated empty answer."""

from __future__ import annotations

import pytest

from agents.run import main
from agents.schema import Answer
from tests.conftest import SAMPLE

pytestmark = pytest.mark.slow


def test_unmet_support_requeries_twice_then_says_no_matching_moment(cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does someone look disgusted?", "--min-support", "0.99", "--json", str(out),
                 "--cache-dir", str(cache_root), "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0
    answer = Answer.model_validate_json(out.read_text())
    assert answer.rounds == 3  # first search + 2 refined re-queries (--max-requery default)
    assert answer.moments == []
    assert answer.candidates_rejected == answer.candidates_considered > 0
    assert answer.message.startswith("no matching moment")
    assert "no matching moment" in printed
    nodes = [step.node for step in answer.trace]
    assert nodes == ["intent_interpreter"] + ["candidate_localizer", "verifier"] * 3 + \
        ["emotion_reasoner", "rationale_writer"]
    assert [s.elapsed_s for s in answer.trace] == sorted(s.elapsed_s for s in answer.trace)
    assert "re-query round 1" in answer.trace[2].decision and "re-query round 2" in answer.trace[4].decision


def test_max_requery_zero_stops_after_the_first_round_and_trace_streams(cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does someone look disgusted?", "--min-support", "0.99", "--max-requery", "0",
                 "--json", str(out), "--cache-dir", str(cache_root), "--quiet", "--trace"])
    assert code == 0
    assert Answer.model_validate_json(out.read_text()).rounds == 1
    err = capsys.readouterr().err
    for node in ("intent_interpreter", "candidate_localizer", "verifier", "emotion_reasoner", "rationale_writer"):
        assert f"{node}:" in err
