"""``--device``: every model that can use one is given it; the CPU keeps working as before; a GPU that is
not there is refused before any work (the CLI side is in ``tests/test_bad_input.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SAMPLE
from tools.core.schema import AFFECTNET8


def _cuda_provider() -> bool:
    import onnxruntime

    return "CUDAExecutionProvider" in onnxruntime.get_available_providers()


def test_engine_on_cpu_reads_faces_as_the_expression_model_does():
    from tools.core.frames import iter_frames
    from tools.perception.engine import PerceptionConfig, PerceptionEngine
    from tools.perception.expression import DEFAULT_EXPRESSION, load_expression_classifier

    engine = PerceptionEngine(PerceptionConfig(device="cpu"))
    t, frame = next(iter_frames(SAMPLE, 1.0, 3.9, 4.4))  # the performer's close-up, grinning
    seen = engine.observe_frame(t, frame, "f0.", hands=False)
    assert seen.faces and engine.classifier.device == "cpu"
    probs = load_expression_classifier(DEFAULT_EXPRESSION).classify(frame, [f.box for f in seen.faces])
    got = np.array([[f.expression[k] for k in AFFECTNET8] for f in seen.faces])
    assert got == pytest.approx(probs, abs=1e-4)
    assert AFFECTNET8[int(got[0].argmax())] == "happiness"


def test_index_config_gives_its_device_to_the_engine_and_keeps_its_cache_key():
    from memory.index_config import IndexConfig

    cpu, gpu = IndexConfig(), IndexConfig(device="cuda")
    assert cpu.perception().device == "cpu" and gpu.perception().device == "cuda"
    assert cpu.key() == gpu.key()  # the same index, wherever it was computed


def test_device_notes_name_the_cpu_only_tools_once_a_gpu_is_asked_for():
    from tools.perception.engine import PerceptionConfig, device_notes

    assert device_notes(PerceptionConfig()) == []
    notes = device_notes(PerceptionConfig(device="cuda"))
    assert len(notes) == 1 and "\n" not in notes[0]
    for words in ("faces (MediaPipe)", "gaze (MediaPipe)", "gestures (MediaPipe)", "identity (dlib)", "CPU"):
        assert words in notes[0]


def test_every_expression_identity_and_voice_loader_takes_a_device():
    import inspect

    from tools.core.runtime import onnx_providers
    from tools.perception import expression
    from tools.perception.identity import FACE_IDENTITIES
    from tools.perception.voice_emotion import VOICE_EMOTION, load_voice_emotion

    for registry in (expression.EXPRESSION_CLASSIFIERS, FACE_IDENTITIES, VOICE_EMOTION):
        for name in registry.names():
            assert "device" in inspect.signature(registry._loaders[name]).parameters, (registry.tool, name)
    voice = load_voice_emotion(device="cuda")  # numpy on the CPU whatever the device
    assert voice.predict_features(np.zeros((1, 252), np.float32)).shape == (1, 8)
    assert onnx_providers("cpu") == ["CPUExecutionProvider"]


@pytest.mark.skipif(_cuda_provider(), reason="this onnxruntime has a CUDA provider")
def test_an_onnx_model_asked_for_on_a_gpu_onnxruntime_cannot_use_is_refused():
    from tools.core.runtime import DeviceError, onnx_providers

    with pytest.raises(DeviceError, match="CUDAExecutionProvider"):
        onnx_providers("cuda")


def test_device_names_are_checked_with_the_settings():
    from graphs.settings import SettingsError, load_settings
    from tools.core.runtime import DeviceError, check_device

    assert load_settings({"device": "cuda:1"}).device == "cuda:1"
    with pytest.raises(SettingsError, match="'gpu' is not a device"):
        load_settings({"device": "gpu"})
    check_device("cpu")  # always usable
    with pytest.raises(DeviceError, match="use cpu, cuda or cuda:N"):
        check_device("tpu")
