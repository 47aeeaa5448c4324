"""faceres, the residual expression network trained here, and the default reader (its mean with face8)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SAMPLE
from tests.test_affect_models import _assembled
from tools.core.schema import AFFECTNET8


def _performer_faces():
    """The sample's performer grinning in close-up (3.9-4.4 s): the frame and its face boxes."""
    from tools.core.frames import iter_frames
    from tools.perception.faces import load_face_detector

    _, frame = next(iter_frames(SAMPLE, 1.0, 3.9, 4.4))
    return frame, [b for b, _ in load_face_detector().detect(frame)]


def test_faceres_reads_a_grin_in_a_recorded_frame_as_happiness():
    from tools.perception.expression import load_expression_classifier

    frame, boxes = _performer_faces()
    probs = load_expression_classifier("faceres").classify(frame, boxes)
    assert len(boxes) >= 1 and probs.shape == (len(boxes), 8)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert AFFECTNET8[int(probs[0].argmax())] == "happiness"
    assert load_expression_classifier("faceres").classify(frame, []).shape == (0, 8)


def test_the_default_reader_is_the_mean_of_faceres_and_face8():
    from tools.perception.expression import DEFAULT_EXPRESSION, load_expression_classifier

    frame, boxes = _performer_faces()
    both = load_expression_classifier(DEFAULT_EXPRESSION).classify(frame, boxes)
    parts = [load_expression_classifier(n).classify(frame, boxes) for n in ("faceres", "face8")]
    assert DEFAULT_EXPRESSION == "faceres+face8"
    assert np.allclose(both, (parts[0] + parts[1]) / 2, atol=1e-5)


def test_faceres_reads_crops_of_any_square_size_alike():
    """The pipeline's 64x64 crop and the same face already at the network's 48x48 read the same."""
    import cv2

    from tools.perception.crops import gray_crop
    from tools.perception.expression import load_expression_classifier

    frame, boxes = _performer_faces()
    crop = gray_crop(frame, boxes[0])
    small = cv2.resize(crop, (48, 48), interpolation=cv2.INTER_AREA)
    model = load_expression_classifier("faceres")
    assert np.allclose(model.classify_crops(crop[None]), model.classify_crops(small[None]), atol=1e-5)


def test_faceres_refuses_weights_that_are_not_its_own(tmp_path):
    from tools.perception.face_resnet import FaceRes

    with pytest.raises(FileNotFoundError):
        FaceRes(tmp_path / "missing.npz")
    other = tmp_path / "other.npz"
    np.savez(other, w=np.zeros(3, np.float16))
    with pytest.raises(ValueError, match="not faceres weights"):
        FaceRes(other)


def test_faceres_beats_face8_on_fer2013_test_faces():
    """FER2013's PrivateTest (grey 48x48 web faces; face8's mini-Xception base was trained on FER2013's
    Training part, faceres on it too): the model card's figures, 0.659 against 0.491."""
    from studies.faces import face_crops
    from tools.perception.expression import load_expression_classifier

    d = face_crops("fer2013", _assembled("fer2013"))
    test = np.flatnonzero(d["split"] == "test")[::4]
    y = d["y"][test]
    acc = {n: float((load_expression_classifier(n).classify_crops(d["x"][test]).argmax(1) == y).mean())
           for n in ("faceres", "face8")}
    assert acc["faceres"] > acc["face8"] + 0.1


def test_the_training_augmentation_quantises_like_jpeg_and_keeps_the_face_in_range():
    """Block-DCT quantisation (the JPEG luminance table) on a real face crop: at quality 95 the face is almost
    unchanged, at 15 detail is lost but each 8x8 block keeps its mean; every augmented batch stays in [-1, 1]."""
    import torch

    from studies.face_augment import Augment, _dct_matrix
    from tools.perception.crops import gray_crop
    from tools.perception.face_resnet import network_input

    d = _dct_matrix()
    assert np.allclose(d @ d.T, np.eye(8), atol=1e-5)
    frame, boxes = _performer_faces()
    x = torch.from_numpy(network_input(gray_crop(frame, boxes[0])[None]) / 2 + 0.5)
    aug = Augment(("video", "occlude"), "cpu", seed=0)
    fine, coarse = aug._quantise(x, 95), aug._quantise(x, 15)
    assert float((fine - x).abs().mean()) < 0.01 < float((coarse - x).abs().mean())
    def block_means(t):
        return t[0, 0].reshape(6, 8, 6, 8).mean((1, 3))

    assert torch.allclose(block_means(coarse), block_means(x), atol=0.02)
    out = aug(x.repeat(64, 1, 1, 1).float())
    assert out.shape == (64, 1, 48, 48) and float(out.min()) >= -1 and float(out.max()) <= 1


def test_a_network_fitted_by_the_training_recipe_loads_as_a_faceres_reader(tmp_path, monkeypatch):
    """``studies.train_face_net.fit`` on hard labels and on label distributions (FER+'s form), then ``save_state``:
    the file loads as the reader the pipeline uses, reads crops as distributions, and carries a name of its own,
    so an index read with other weights is never taken for one read with these."""
    from studies.train_face_net import class_weights, fit, save_state
    from tools.perception.face_resnet import FaceRes

    monkeypatch.setenv("AFFECTSEEK_MODEL_CACHE", str(tmp_path / "models"))  # these weights' exports: not the user's

    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (64, 48, 48), dtype=np.uint8)
    hard = np.arange(64) % 8
    soft = np.eye(8)[hard] * 0.7 + np.eye(8)[(hard + 1) % 8] * 0.3
    for y in (hard, soft):
        net = fit(x, y, class_weights(hard), "plain", epochs=1, device="cpu")
        save_state(net, tmp_path / "faceres.npz")
        reader = FaceRes(tmp_path / "faceres.npz")
        probs = reader.classify_crops(rng.integers(0, 256, (3, 64, 64), dtype=np.uint8))
        assert probs.shape == (3, 8) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
        assert reader.name != FaceRes().name and reader.name.startswith("faceres:faceres.npz@")


def test_the_shipped_reader_is_the_mean_of_its_two_networks(tmp_path, monkeypatch):
    """The shipped file holds two networks (keys ``m0.``, ``m1.``; ``tools/models/FACERES.md``): its reading of the
    performer's face is the mean of what each network alone reads."""
    from tools.perception.crops import gray_crop
    from tools.perception.face_resnet import FACERES_WEIGHTS, FaceRes

    frame, boxes = _performer_faces()
    crops = np.stack([gray_crop(frame, b) for b in boxes])
    with np.load(FACERES_WEIGHTS) as f:
        arrays = {k: f[k] for k in f.files}
    assert {k.split(".", 1)[0] for k in arrays} == {"m0", "m1"}
    shipped = FaceRes().classify_crops(crops)
    monkeypatch.setenv("AFFECTSEEK_MODEL_CACHE", str(tmp_path / "models"))  # each network's export: not the user's
    alone = []
    for m in ("m0", "m1"):
        np.savez(tmp_path / f"{m}.npz", **{k[len(m) + 1:]: v for k, v in arrays.items() if k.startswith(m + ".")})
        alone.append(FaceRes(tmp_path / f"{m}.npz").classify_crops(crops))
    assert np.allclose(shipped, np.mean(alone, axis=0), atol=1e-5)
    assert not np.allclose(alone[0], alone[1], atol=1e-3)  # two trainings, two readings


def test_faceres_reads_alike_in_onnxruntime_and_in_torch():
    """On the CPU faceres runs as an onnxruntime export of its torch module (``FaceRes`` doc): the performer's faces,
    one at a time and in a batch, under one thread (the engine's rule while gestures run) and two, read as torch
    reads them."""
    from tools.perception.cpu_onnx import intra_op_threads
    from tools.perception.crops import gray_crop
    from tools.perception.face_resnet import FaceRes

    frame, boxes = _performer_faces()
    crops = np.stack([gray_crop(frame, b) for b in boxes] * 3)
    reader = FaceRes()
    by_torch = reader.classify_crops(crops, engine="torch")
    for threads in (1, 2):
        with intra_op_threads(threads):
            assert np.allclose(reader.classify_crops(crops), by_torch, atol=1e-5)
            assert np.allclose(reader.classify_crops(crops[:1]), by_torch[:1], atol=1e-5)
    assert reader.onnx.threads_used == [1, 2]


def test_faceres_runs_without_onnxruntimes_cpu_dependent_layout(tmp_path):
    """At its full optimization level onnxruntime rewrites faceres's convolutions into NCHWc blocks as wide as the
    CPU's vectors, which sum in another order on an AVX2 CPU than on an AVX-512 one (``evals/RESULTS.md`` section
    120). The sessions here stop one level below (``GRAPH_OPTIMIZATION``): the graph onnxruntime runs has no NCHWc
    node where the full level's has, and a face reads the same bits alone or in a batch, on one thread or two."""
    import onnx
    import onnxruntime as ort

    from tools.perception.cpu_onnx import intra_op_threads, session_options
    from tools.perception.crops import gray_crop
    from tools.perception.face_resnet import FaceRes

    reader = FaceRes()
    reader.onnx.prepare()

    def domains(level: str) -> set[str]:
        opts = session_options(1)
        opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
        opts.optimized_model_filepath = str(tmp_path / f"{level}.onnx")
        ort.InferenceSession(str(reader.onnx.path), opts, providers=["CPUExecutionProvider"])
        return {node.domain for node in onnx.load(opts.optimized_model_filepath).graph.node}

    assert "com.microsoft.nchwc" in domains("ORT_ENABLE_ALL")
    assert "com.microsoft.nchwc" not in domains(session_options(1).graph_optimization_level.name)
    frame, boxes = _performer_faces()
    crops = np.stack([gray_crop(frame, b) for b in boxes] * 3)
    with intra_op_threads(1):
        alone = np.concatenate([reader.classify_crops(crops[i : i + 1]) for i in range(len(crops))])
        assert np.array_equal(reader.classify_crops(crops), alone)
    with intra_op_threads(2):
        assert np.array_equal(reader.classify_crops(crops), alone)


def test_faceres_takes_a_batch_workers_share_of_the_cores(monkeypatch):
    """onnxruntime does not read ``OMP_NUM_THREADS``: where it is set (a batch worker's share, ``app.batch_tasks``),
    faceres's session is made for that many threads, and unset for onnxruntime's default (0); the readings are the
    same."""
    from tools.perception.crops import gray_crop
    from tools.perception.face_resnet import FaceRes

    frame, boxes = _performer_faces()
    crops = np.stack([gray_crop(frame, b) for b in boxes])
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    capped = FaceRes()
    in_share = capped.classify_crops(crops)
    monkeypatch.delenv("OMP_NUM_THREADS")
    free = FaceRes()
    assert np.array_equal(free.classify_crops(crops), in_share)
    assert capped.onnx.threads_used == [1] and free.onnx.threads_used == [0]
