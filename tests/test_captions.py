"""Keyframe captions through litellm (--caption-model): bounded image parts, scene words in clip descriptors,
one clear error when the model cannot be reached. Replies are litellm's own ``mock_response``."""

from __future__ import annotations

import base64
import io

import litellm
import pytest

from app.ask import main
from indexing.build import open_index
from memory.index_config import IndexConfig
from tests.conftest import SAMPLE
from tools.perception.captions import caption_times, scene_of

MODEL = "openai/gpt-4o-mini"


def test_keyframes_are_the_shot_middles_and_one_per_interval_in_long_shots():
    assert caption_times(30.0, [4.0], every_s=10.0) == [2.0, 8.333, 17.0, 25.667]  # shot 0-4; 4-30 in three
    assert caption_times(10.0, [], every_s=10.0) == [5.0]
    assert len(caption_times(3600.0, [], every_s=1.0, max_keyframes=50)) == 50
    caps = [(2.0, "a"), (9.2, "b")]
    assert scene_of(0.0, 4.0, caps, 10.0) == "a" and scene_of(8.0, 12.0, caps, 10.0) == "b"
    assert scene_of(40.0, 44.0, caps, 10.0) is None


@pytest.mark.slow
def test_captions_reach_clip_descriptors_with_bounded_images(monkeypatch, tmp_path):
    from PIL import Image

    real, requests = litellm.completion, []

    def completion(*args, **kwargs):
        requests.append(kwargs)
        return real(*args, mock_response=f"caption {len(requests)}: a man speaks into a microphone on a stage",
                    **kwargs)

    monkeypatch.setattr(litellm, "completion", completion)
    index = open_index(SAMPLE, IndexConfig(caption_model=MODEL, caption_every_s=5.0), tmp_path)
    assert len(requests) == len(caption_times(index.info.duration_s, index.cuts, 5.0)) >= 2
    for kw in requests:
        assert kw["model"] == MODEL
        parts = kw["messages"][0]["content"]
        images = [p for p in parts if p["type"] == "image_url"]
        assert len(images) == 1 and images[0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
        img = Image.open(io.BytesIO(base64.b64decode(images[0]["image_url"]["url"].split(",", 1)[1])))
        assert max(img.size) <= 512
    assert all(c.scene and c.scene.startswith("caption ") for c in index.clips)
    assert all(c.descriptor.startswith(f"scene: {c.scene}") for c in index.clips)
    assert f"{len(requests)} keyframes captioned, 0 failed" in index.manifest["models"]["captions"]
    assert IndexConfig().key() != IndexConfig(caption_model=MODEL).key()


@pytest.mark.slow
def test_an_unreachable_caption_model_is_one_clear_error(monkeypatch, tmp_path, capsys):
    real = litellm.completion
    monkeypatch.setattr(litellm, "completion",
                        lambda *a, **kw: real(*a, mock_response=litellm.AuthenticationError("bad key", "openai", MODEL),
                                              **kw))
    code = main([str(SAMPLE), "when is he happy?", "--caption-model", MODEL, "--cache-dir", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1
    assert err[0].startswith(f"error: --caption-model {MODEL}: no keyframe could be captioned")
    assert "AuthenticationError" in err[0]
