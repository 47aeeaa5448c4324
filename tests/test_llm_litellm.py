"""The litellm path through the same graph: replies come from litellm's own ``mock_response``.

The only fake is at the network edge: ``litellm.completion`` is wrapped so each call carries a
``mock_response`` written from that call's input JSON, and litellm builds the response as for a provider.
"""

from __future__ import annotations

import json

import litellm
import pytest

import agents.llm as llm_module
from agents.intent import INTERPRET_INTENT
from agents.llm import LiteLLMClient, ProviderDown, extract_json
from agents.schema import Answer
from app.ask import main
from tests.conftest import SAMPLE

pytestmark = pytest.mark.slow
MODEL = "openai/gpt-4o-mini"


def _task(messages) -> str:
    system = messages[0]["content"]
    for key, marker in (("interpret_intent", "You interpret"), ("refine_query", "Too few candidate"),
                        ("judge_emotion", "Decide the AffectNet-8"), ("write_rationale", "Explain why"),
                        ("choose_option", "Answer a multiple-choice")):
        if system.startswith(marker):
            return key
    raise AssertionError(system[:80])


def _good_reply(task: str, inputs: dict) -> str:
    if task == "interpret_intent":
        chosen = {"target_labels": ["pride"]} if "Pride" in inputs.get("answer_labels", {}) else {}
        return json.dumps({"target_emotions": ["surprise", "happiness"], "people": ["the audience"],
                           "cues": ["facial_expression", "group"], "search_text": "the audience reacts with delight",
                           **chosen})
    if task == "refine_query":
        return json.dumps({"search_text": "people laughing", "reason": "mock re-query"})
    if task == "judge_emotion":
        start, end = inputs["span"]
        return "```json\n" + json.dumps({"emotion": "surprise", "confidence": 0.7, "start_s": start,
                                         "end_s": end}) + "\n```"
    if task == "choose_option":
        ev = inputs["evidence"][0]
        return json.dumps({"option": len(inputs["options"]) - 1 if inputs["question"].endswith("?") else 99,
                           "steps": [{"modality": ev["modality"], "text": ev["detail"], "evidence_ids": [ev["id"]]},
                                     {"modality": "n/a", "text": "so the last option", "external_knowledge": True}]})
    ev = inputs["evidence"][0]
    return json.dumps({"summary": f"mocked rationale citing {ev['id']}",
                       "steps": [{"modality": ev["modality"], "text": ev["detail"], "evidence_ids": [ev["id"]]}]})


@pytest.fixture
def mocked_litellm(monkeypatch):
    real = litellm.completion
    calls: list[str] = []
    mode = {"reply": "good"}

    def completion(*args, **kwargs):
        task = _task(kwargs["messages"])
        calls.append(task)
        inputs = json.loads(kwargs["messages"][1]["content"])
        reply = _good_reply(task, inputs) if mode["reply"] == "good" else "Sorry, I can't help with that."
        return real(*args, mock_response=reply, **kwargs)

    monkeypatch.setattr(litellm, "completion", completion)
    return calls, mode


def test_llm_flag_takes_the_same_graph_path(mocked_litellm, cache_root, tmp_path, capsys):
    calls, _ = mocked_litellm
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when are they amazed?", "--llm", MODEL, "--json", str(out),
                 "--cache-dir", str(cache_root), "--quiet"])
    assert code == 0, capsys.readouterr().err
    answer = Answer.model_validate_json(out.read_text())
    assert answer.llm == MODEL and answer.llm_fallbacks == []
    assert answer.intent.target_emotions == ["surprise", "happiness"]
    assert answer.intent.search_text == "the audience reacts with delight"
    assert calls[0] == "interpret_intent" and "judge_emotion" in calls
    assert answer.moments and calls.count("write_rationale") == len(answer.moments)
    for m in answer.moments:
        assert m.emotion == "surprise" and m.confidence == pytest.approx(0.7)
        assert m.rationale.startswith("mocked rationale citing ")
        assert m.rationale.split()[-1] in {e.id for e in m.evidence}


def test_an_llm_picks_answer_labels_from_their_descriptions(mocked_litellm, cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    assert main([str(SAMPLE), "when do they beam about the result?", "--labels", "VQAU-13", "--llm", MODEL,
                 "--json", str(out), "--cache-dir", str(cache_root), "--quiet"]) == 0, capsys.readouterr().err
    answer = Answer.model_validate_json(out.read_text())
    assert answer.labels == "VQAU-13" and answer.intent.target_labels == ["Pride"]
    # the judge reads surprise, which Pride does not cover: the moment keeps surprise's own VQAU-13 name
    assert answer.moments and {(m.affectnet8, m.emotion) for m in answer.moments} == {("surprise", "Surprise")}


def test_a_multiple_choice_answer_comes_from_the_llm_and_an_invalid_option_falls_back(mocked_litellm, cache_root,
                                                                                       tmp_path, capsys):
    calls, _ = mocked_litellm
    out = tmp_path / "a.json"
    options = ["They boo", "They leave", "They laugh and smile"]
    assert main([str(SAMPLE), "how does the audience react?", "--options", *options, "--llm", MODEL,
                 "--json", str(out), "--cache-dir", str(cache_root), "--quiet"]) == 0, capsys.readouterr().err
    answer = Answer.model_validate_json(out.read_text())
    assert answer.options == options and answer.llm_fallbacks == []
    assert (answer.choice.option, answer.choice.text) == (2, "They laugh and smile")
    assert [(s.modality, s.external_knowledge) for s in answer.choice.steps][1] == ("n/a", True)
    assert calls[-1] == "choose_option"
    # a reply naming option 99 of 3 fails validation, is repaired once, then the offline chooser answers
    assert main([str(SAMPLE), "how does the audience react (no question mark)", "--options", *options, "--llm", MODEL,
                 "--json", str(out), "--cache-dir", str(cache_root), "--quiet"]) == 0
    answer = Answer.model_validate_json(out.read_text())
    assert any(f.startswith("choose_option") for f in answer.llm_fallbacks)
    assert calls[-2:] == ["choose_option", "choose_option"] and answer.choice.text in options


def test_invalid_llm_output_is_repaired_once_then_falls_back(mocked_litellm, cache_root, tmp_path, capsys):
    calls, mode = mocked_litellm
    mode["reply"] = "bad"
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does the audience enjoy the show?", "--llm", MODEL, "--json", str(out),
                 "--cache-dir", str(cache_root), "--quiet"])
    assert code == 0, capsys.readouterr().err
    answer = Answer.model_validate_json(out.read_text())
    assert answer.llm_fallbacks and all("after one repair attempt" in f for f in answer.llm_fallbacks)
    assert calls[:2] == ["interpret_intent", "interpret_intent"]  # the reply, then one repair attempt
    assert answer.intent.target_emotions[0] == "happiness"  # offline reasoner's reading


def test_provider_down_raises_llm_error_quickly():
    client = LiteLLMClient(MODEL, max_retries=0, timeout=5, api_base="http://127.0.0.1:9", api_key="none")
    with pytest.raises(ProviderDown, match="provider call failed"):
        client.structured(INTERPRET_INTENT, {"query": "when is she sad?"})


def test_an_unknown_provider_fails_without_printing_on_standard_output(capfd):
    """litellm prints "Provider List: ..." for a model id whose provider it does not know; on standard output that
    broke ``--json -`` (the answer's JSON after its lines). Its prints now go to standard error."""
    client = LiteLLMClient("bogus", max_retries=0, timeout=5)
    with pytest.raises(ProviderDown, match="provider call failed"):
        client.structured(INTERPRET_INTENT, {"query": "when is she sad?"})
    out, err = capfd.readouterr()
    assert out == "" and "Provider List" in err


def test_transient_failures_are_retried_with_exponential_backoff(monkeypatch):
    real, replies, waits = litellm.completion, ["litellm.RateLimitError", "litellm.InternalServerError"], []
    monkeypatch.setattr(llm_module, "_sleep", waits.append)

    def completion(*args, **kwargs):
        reply = replies.pop(0) if replies else _good_reply("interpret_intent", {})
        return real(*args, mock_response=reply, **kwargs)

    monkeypatch.setattr(litellm, "completion", completion)
    client = LiteLLMClient(MODEL, max_retries=3, backoff_s=0.5)
    intent = client.structured(INTERPRET_INTENT, {"query": "when are they amazed?"})
    assert intent.target_emotions == ["surprise", "happiness"]
    assert client.retries == 2 and waits == [0.5, 1.0]  # 429, then 500, then the answer


def test_timeouts_exhaust_the_retries_then_raise_provider_down(monkeypatch):
    waits = []
    monkeypatch.setattr(llm_module, "_sleep", waits.append)
    client = LiteLLMClient(MODEL, max_retries=2, backoff_s=1.0, max_backoff_s=1.5, timeout=0.01, mock_timeout=True)
    with pytest.raises(ProviderDown, match="after 3 attempts: Timeout"):
        client.structured(INTERPRET_INTENT, {"query": "when is she sad?"})
    assert waits == [1.0, 1.5]  # 1 s, then 2 s capped at 1.5 s


def test_a_refusal_is_not_retried_and_falls_back(monkeypatch):
    real, calls = litellm.completion, []
    refusal = {"choices": [{"message": {"role": "assistant", "content": None, "refusal": "I can't help with that."},
                            "finish_reason": "stop"}]}

    def completion(*args, **kwargs):
        calls.append(1)
        return real(*args, mock_response=refusal, **kwargs)

    monkeypatch.setattr(litellm, "completion", completion)
    from agents.llm import FallbackLLM, OfflineReasoner

    llm = FallbackLLM(LiteLLMClient(MODEL), OfflineReasoner())
    intent = llm.structured(INTERPRET_INTENT, {"query": "when does the audience enjoy the show?"})
    assert len(calls) == 1 and intent.target_emotions[0] == "happiness"  # the offline reasoner's answer
    assert llm.fallbacks == [f"interpret_intent: {MODEL}: refused interpret_intent: I can't help with that."]


def test_rate_limited_provider_falls_back_for_the_whole_run(monkeypatch, cache_root, tmp_path, capsys):
    real, calls = litellm.completion, []
    monkeypatch.setattr(llm_module, "_sleep", lambda s: None)

    def completion(*args, **kwargs):
        calls.append(_task(kwargs["messages"]))
        return real(*args, mock_response="litellm.RateLimitError", **kwargs)

    monkeypatch.setattr(litellm, "completion", completion)
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does the audience enjoy the show?", "--llm", MODEL, "--json", str(out),
                 "--cache-dir", str(cache_root), "--quiet"])
    assert code == 0, capsys.readouterr().err
    answer = Answer.model_validate_json(out.read_text())
    assert calls == ["interpret_intent"] * 4  # 1 try + 3 retries, then no role calls the provider again
    assert "after 4 attempts: RateLimitError" in answer.llm_fallbacks[0]
    assert answer.llm_fallbacks[1:] and all("provider down since interpret_intent" in f
                                            for f in answer.llm_fallbacks[1:])
    assert answer.moments  # answered by the offline reasoner
    shown = capsys.readouterr().out.replace("\n", " ")
    assert f"warning: --llm {MODEL} was unavailable; the offline reasoner answered instead (interpret_intent," in shown


def test_extract_json_strips_fences_and_prose():
    assert extract_json('Sure!\n```json\n{"a": 1}\n```') == '{"a": 1}'
    assert extract_json('The answer is {"a": {"b": 2}} ok') == '{"a": {"b": 2}}'
