"""PLUMBING test of the CLIP clip-embedder path, not a retrieval-quality test.

No registry package ships CLIP weights, so this builds a tiny randomly initialised open_clip model
locally, saves it as a checkpoint, and runs the CLI with ``--openclip-checkpoint``: the real open_clip
loading, image/text encoding, FAISS index and graph run end to end. Its rankings mean nothing.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.schema import Answer
from app.ask import main
from tests.conftest import SAMPLE
from tools.perception.embedders import OpenClipEmbedder

pytestmark = pytest.mark.slow

TINY = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 64, "layers": 2, "width": 64, "patch_size": 16, "head_width": 32},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 64, "heads": 2, "layers": 2},
}


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory):
    import open_clip
    import torch

    d = tmp_path_factory.mktemp("tinyclip")
    cfg = d / "affectseek-tiny-test.json"
    cfg.write_text(json.dumps(TINY))
    open_clip.add_model_config(str(cfg))
    torch.manual_seed(0)
    model = open_clip.create_model("affectseek-tiny-test", pretrained=None)
    ckpt = d / "tiny.pt"
    torch.save(model.state_dict(), ckpt)
    return cfg, ckpt


def test_open_clip_embedder_loads_checkpoint_and_embeds(tiny_clip):
    cfg, ckpt = tiny_clip
    emb = OpenClipEmbedder(model=str(cfg), checkpoint=str(ckpt))
    frames = [np.full((90, 160, 3), v, np.uint8) for v in (0, 128, 255)]
    img = emb.embed_frames(frames)
    txt = emb.embed_queries(["a person smiling", "an empty room"])
    assert img.shape == (3, 32) and txt.shape == (2, 32)
    assert np.allclose(np.linalg.norm(img, axis=1), 1.0, atol=1e-4)
    assert emb.name == "open_clip:affectseek-tiny-test:tiny.pt"


def test_cli_with_openclip_checkpoint_uses_the_clip_index(tiny_clip, tmp_path, capsys):
    cfg, ckpt = tiny_clip
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does the audience enjoy the show?", "--openclip-checkpoint", str(ckpt),
                 "--openclip-model", str(cfg), "--json", str(out), "--cache-dir", str(tmp_path / "cache"), "--quiet"])
    assert code == 0, capsys.readouterr().err
    answer = Answer.model_validate_json(out.read_text())
    assert answer.embedder == "open_clip:affectseek-tiny-test:tiny.pt"
    import faiss

    clips = faiss.read_index(str(next((tmp_path / "cache").rglob("clips.faiss"))))
    assert (clips.ntotal, clips.d) == (4, 32)  # 4 clips of the 10 s sample, 32-d tiny CLIP space
    assert answer.candidates_considered >= 1
