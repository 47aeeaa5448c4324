"""The vision LLM path (--llm-images) against a loopback OpenAI-compatible server that records what it is sent.

The server speaks the Chat Completions wire format on 127.0.0.1 and replays valid answers built from each
request's own JSON input (``tests.test_llm_litellm._good_reply``); litellm sends real HTTP requests to it.
"""

from __future__ import annotations

import base64
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agents.schema import Answer
from agents.vision import FACE_SIDE, KEYFRAME_SIDE
from app.ask import main
from tests.conftest import SAMPLE
from tests.test_llm_litellm import _good_reply, _task

pytestmark = pytest.mark.slow


def _kind(messages) -> str:
    return "ground_person" if messages[0]["content"].startswith("Decide which of the people") else _task(messages)


#: Replies the server gives instead of ``_good_reply`` (task -> function of the request's JSON input).
OVERRIDES: dict = {}


@pytest.fixture
def loopback_llm(monkeypatch):
    """The recorded request bodies of an OpenAI-compatible server on 127.0.0.1 that litellm is pointed at."""
    requests: list[dict] = []
    OVERRIDES.clear()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append(body)
            user = body["messages"][1]["content"]
            text = user if isinstance(user, str) else next(p["text"] for p in user if p["type"] == "text")
            kind = _kind(body["messages"])
            reply = OVERRIDES[kind](json.loads(text)) if kind in OVERRIDES else _good_reply(kind, json.loads(text))
            data = json.dumps({"id": f"r{len(requests)}", "object": "chat.completion", "created": 0,
                               "model": body["model"],
                               "choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant", "content": reply}}],
                               "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    monkeypatch.setenv("OPENAI_API_BASE", f"http://127.0.0.1:{server.server_address[1]}/v1")
    yield requests
    server.shutdown()


def _images(body: dict) -> list:
    from PIL import Image

    user = body["messages"][1]["content"]
    parts = [] if isinstance(user, str) else [p for p in user if p["type"] == "image_url"]
    return [Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1]))) for p in parts]


def test_the_emotion_reasoner_shows_a_vision_model_bounded_images(loopback_llm, cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does someone smile?", "--llm", "openai/vision-loopback", "--llm-images", "2",
                 "--json", str(out), "--cache-dir", str(cache_root)])
    printed = capsys.readouterr().out
    assert code == 0
    answer = Answer.model_validate_json(out.read_text())
    assert answer.llm_fallbacks == [] and answer.moments
    judged = [b for b in loopback_llm if _kind(b["messages"]) == "judge_emotion"]
    others = [b for b in loopback_llm if _kind(b["messages"]) != "judge_emotion"]
    assert judged and others and all(_images(b) == [] for b in others)
    sent = 0
    for body in judged:
        images = _images(body)
        assert 1 <= len(images) <= 2
        assert max(images[0].size) <= KEYFRAME_SIDE and all(max(i.size) <= FACE_SIDE for i in images[1:])
        sent += len(images)
    assert any(len(_images(b)) == 2 for b in judged)  # a face crop beside the keyframe
    assert answer.llm_usage == {"calls": len(loopback_llm), "images": sent, "cost_usd": 0.0}
    assert answer.index["tool_calls"]["llm_images"] == sent
    assert f"{len(loopback_llm)} calls, {sent} images" in " ".join(printed.split())


def test_no_images_are_sent_unless_asked(loopback_llm, cache_root, tmp_path):
    out = tmp_path / "a.json"
    assert main([str(SAMPLE), "when does someone smile?", "--llm", "openai/vision-loopback", "--json", str(out),
                 "--cache-dir", str(cache_root), "--quiet"]) == 0
    assert loopback_llm and all(_images(b) == [] for b in loopback_llm)
    assert Answer.model_validate_json(out.read_text()).llm_usage["images"] == 0


def _intent_naming(phrase: str):
    def reply(inputs: dict) -> str:
        intent = json.loads(_good_reply("interpret_intent", inputs))
        return json.dumps({**intent, "people": [phrase]})
    return reply


def test_a_person_named_by_appearance_is_grounded_by_the_vision_model(loopback_llm, cache_root, tmp_path):
    from indexing.build import open_index
    from memory.index_config import IndexConfig

    index = open_index(SAMPLE, IndexConfig(), cache_root)
    OVERRIDES["interpret_intent"] = _intent_naming("the man in the dark suit")
    OVERRIDES["ground_person"] = lambda inputs: json.dumps(
        {"persons": [inputs["people"][0]["person"]], "confidence": 0.8, "reason": "dark suit, microphone"})
    out = tmp_path / "a.json"
    assert main([str(SAMPLE), "when does the man in the dark suit smile?", "--llm", "openai/vision-loopback",
                 "--llm-images", "3", "--json", str(out), "--cache-dir", str(cache_root), "--quiet"]) == 0
    answer = Answer.model_validate_json(out.read_text())
    [asked] = [b for b in loopback_llm if _kind(b["messages"]) == "ground_person"]
    shown = json.loads(asked["messages"][1]["content"][0]["text"])["people"]
    images = _images(asked)
    assert len(shown) == len(images) == 3 and all(max(i.size) <= FACE_SIDE for i in images)
    performer = index.person_of(0)  # the most screen time: the performer, in two shots
    assert shown[0]["person"] == performer
    [g] = answer.people
    assert g.phrase == "the man in the dark suit" and g.rule == "vision" and g.persons == [performer]
    assert g.confidence == 0.8 and "dark suit, microphone" in g.detail and g.thumbnails
    faces = [e for m in answer.moments for e in m.evidence if e.modality == "visual" and "'s face" in e.detail]
    assert faces and {e.person for e in faces} == {performer}  # the verifier read his face only


def test_a_vision_choice_outside_the_people_shown_is_rejected(loopback_llm, cache_root, tmp_path):
    OVERRIDES["interpret_intent"] = _intent_naming("the man in the dark suit")
    OVERRIDES["ground_person"] = lambda inputs: json.dumps({"persons": [999], "confidence": 0.9})
    out = tmp_path / "a.json"
    assert main([str(SAMPLE), "when does the man in the dark suit smile?", "--llm", "openai/vision-loopback",
                 "--llm-images", "2", "--json", str(out), "--cache-dir", str(cache_root), "--quiet"]) == 0
    answer = Answer.model_validate_json(out.read_text())
    assert len([b for b in loopback_llm if _kind(b["messages"]) == "ground_person"]) == 2  # one repair
    assert answer.people == [] and any(f.startswith("ground_person:") for f in answer.llm_fallbacks)
