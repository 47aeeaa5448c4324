"""One perception engine: every frame-level perception model behind one object and one call.

The engine is built once from a ``PerceptionConfig`` (open_clip's ``create_model_and_transforms``
idea: loading apart from use) and loads its models lazily, on the first frame it has to look at, so a
caller whose results are all cached never loads a model. ``observe`` turns decoded frames into typed
``FrameObservation`` records: faces with their AffectNet-8 expression (``tools.perception.faces``,
``tools.perception.expression``), gaze and lip activity per face (``tools.perception.gaze``) and, when asked, hands with
gestures and body-pose crossed arms (``tools.perception.gestures``); ``describe`` gives face identity descriptors
(``tools.perception.identity``) for re-identifying people across shots, and ``appearance`` reads them as annotated
gender and age group (``tools.perception.appearance``). Indexing observes the whole video at 1 fps
(with hands unless ``IndexConfig.index_gestures`` is off); verification observes candidate clips at 4 fps with hands (``indexing.observe`` stores
the records per chunk). Adding a frame-level model means one module with a registry and one field here.

A second thread takes the costliest model after the face detector: with hands, the gesture models (MediaPipe Hands
and Pose, the slowest tools); without, the face mesh (gaze and lips, ``evals/RESULTS.md`` section 59). The
expression networks (onnxruntime on the CPU, ``tools.perception.cpu_onnx``) keep to one thread meanwhile, so the two
share the cores instead of contending. ``observe`` runs
one frame deep: a frame's side-thread work is collected only after the next frame has been decoded and its faces
and expressions read, so the second thread stays busy while the main thread decodes; on 2 cores a frame then costs
about the longer of the two threads' work instead of their sum (measured in ``benches/bench_index.py``'s
new-question latency). Results are the same as in sequence: every model sees the same frames with the same inputs,
and the face mesh reads each face crop on its own (static image mode), whatever ran before.

Devices (``PerceptionConfig.device``, ``--device``): the expression model (torch: face8 and fer's
mini-Xception; onnxruntime's CUDA provider: hsemotion) and the identity loader are given the device.
MediaPipe (faces, gaze and lips, hands and pose) runs on the CPU whatever the device: the legacy
``mp.solutions`` graphs of the pip wheel run TF-Lite with the CPU (XNNPACK) delegate; dlib's face identity
(the ``dlib-bin`` wheel's landmarks, its network in onnxruntime) stays on the CPU too. ``device_notes``
says so in one line when a GPU was asked for (the answer's ``warnings``), which is not an error.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from pydantic import BaseModel, Field

from tools.core.schema import AFFECTNET8, Appearance, FaceObservation, FrameFaces, Gaze, HandObservation
from tools.perception.appearance import load_appearance_reader
from tools.perception.cpu_onnx import intra_op_threads
from tools.perception.expression import DEFAULT_EXPRESSION, load_expression_classifier
from tools.perception.faces import load_face_detector
from tools.perception.gaze import load_gaze_estimator
from tools.perception.gestures import GESTURE_RECOGNIZERS, load_gesture_recognizer
from tools.perception.identity import load_face_identity


class PerceptionConfig(BaseModel, frozen=True):
    """Which backend each frame-level tool uses (names registered in the tool modules), and the device
    (``cpu``, ``cuda``, ``cuda:N``) of the models that can use one (see the module doc)."""

    face_backend: str = "mediapipe"
    expression_backend: str = DEFAULT_EXPRESSION
    gaze_backend: str = "mediapipe"
    gesture_backend: str = "mediapipe"
    identity_backend: str = "dlib"
    device: str = "cpu"


#: Backends that run on the CPU whatever ``PerceptionConfig.device`` says (see the module doc).
CPU_ONLY_BACKENDS = {"mediapipe": "MediaPipe", "mediapipe-ranges": "MediaPipe", "dlib": "dlib"}


def device_notes(config: PerceptionConfig) -> list[str]:
    """One line (in a list) naming the tools of ``config`` that stay on the CPU when ``config.device`` is a
    GPU; empty on ``cpu`` or when every tool follows the device. Nothing is loaded."""
    if config.device == "cpu":
        return []
    tools = {"faces": config.face_backend, "gaze": config.gaze_backend, "gestures": config.gesture_backend,
             "identity": config.identity_backend}
    on_cpu = [f"{tool} ({CPU_ONLY_BACKENDS[b]})" for tool, b in tools.items() if b in CPU_ONLY_BACKENDS]
    if not on_cpu:
        return []
    return [(f"--device {config.device}: {', '.join(on_cpu)} run on the CPU (these libraries' wheels have no GPU "
             "path); the other models use the GPU")]


class FrameObservation(FrameFaces):
    """What the engine saw in one frame: faces with expressions, gaze per face (same order), hands."""

    gaze: list[Gaze] = Field(default_factory=list, description="one per face, same order")
    hands: list[HandObservation] = Field(default_factory=list)

    def faces_only(self) -> FrameFaces:
        """The faces alone (the index-time affect record)."""
        return FrameFaces(t=self.t, faces=self.faces)


class PerceptionEngine:
    """Holds the frame-level perception models of one ``PerceptionConfig``; see the module doc.

    Raises (on first use):
        tools.core.registry.UnknownBackendError, tools.core.registry.BackendUnavailableError: a backend is
            unknown or cannot load.
    """

    def __init__(self, config: PerceptionConfig) -> None:
        self.config = config
        #: Seconds spent in each tool (``faces``, ``expression``, ``gaze``, ``gestures``, ``identity``) since
        #: creation.
        self.seconds: dict[str, float] = {}
        self._side_thread = ThreadPoolExecutor(1, thread_name_prefix="perception-side")

    def _timed(self, tool: str, fn, *args):
        t0 = time.perf_counter()
        try:
            return fn(*args)
        finally:
            self.seconds[tool] = self.seconds.get(tool, 0.0) + time.perf_counter() - t0

    @functools.cached_property
    def detector(self):
        """The face detector (loaded on first access)."""
        return load_face_detector(self.config.face_backend)

    @functools.cached_property
    def classifier(self):
        """The expression classifier on ``config.device`` (loaded on first access)."""
        return load_expression_classifier(self.config.expression_backend, device=self.config.device)

    @functools.cached_property
    def gaze(self):
        """The gaze / lip-activity estimator (loaded on first access)."""
        return load_gaze_estimator(self.config.gaze_backend)

    @functools.cached_property
    def gestures(self):
        """The hand-gesture recognizer (loaded on first access)."""
        return load_gesture_recognizer(self.config.gesture_backend)

    @functools.cached_property
    def identity(self):
        """The face identity model (loaded on first access), given ``config.device`` (dlib: CPU only)."""
        return load_face_identity(self.config.identity_backend, device=self.config.device)

    def describe(self, frame: np.ndarray, boxes: list) -> np.ndarray:
        """Identity descriptors (N, D) of the faces at ``boxes`` (normalized) in an RGB frame (H, W, 3)."""
        return self._timed("identity", self.identity.describe, frame, boxes)

    def appearance(self, descriptors: np.ndarray) -> Appearance | None:
        """Annotated gender and age group of one person's or track's faces from their identity descriptors
        (N, 128) (``tools.perception.appearance``); None when the identity backend is not the dlib model the heads were
        trained on."""
        if self.config.identity_backend != "dlib":
            return None
        return load_appearance_reader().read(descriptors)

    def tool_names(self, hands: bool) -> dict[str, str]:
        """Names of the tools behind observations: ``face`` ("<detector>+<expression>") and ``social``
        ("<gestures>|<gaze>", or the gaze tool alone without hands). Loads the models, but not the gesture models
        where their backend declares its name (``GESTURE_RECOGNIZERS.tool_name``): a question about a feeling
        reads hands on the index's frames only and never runs them (about 0.9 s to load)."""
        social = self.gaze.name
        if hands:
            loaded = "gestures" in self.__dict__
            declared = None if loaded else GESTURE_RECOGNIZERS.tool_name(self.config.gesture_backend)
            social = f"{declared or self.gestures.name}|{social}"
        return {"face": f"{self.detector.name}+{self.classifier.name}", "social": social}

    def observe_frame(self, t: float, frame: np.ndarray, id_prefix: str, hands: bool,
                      pose: bool = True) -> FrameObservation:
        """Observe one RGB frame (H, W, 3) at ``t`` seconds (with ``hands``, body pose too unless ``pose`` is off).

        Face ids are ``<id_prefix><i>``, gaze ids ``<face id>.gaze``, hand ids ``h<id_prefix minus
        its first character><i>`` (``f3.7.`` -> faces ``f3.7.0``, hands ``h3.7.0``).
        """
        return self._collect(self._start(t, frame, id_prefix, hands, pose))

    def _start(self, t: float, frame: np.ndarray, id_prefix: str, hands: bool, pose: bool = True) -> tuple:
        """Faces and expressions of one frame on this thread; its gestures (``hands``; the gaze then runs here) or else
        its gaze submitted to the side thread; ``_collect`` turns the result into the frame's observation."""
        dets = self._timed("faces", self.detector.detect, frame)
        boxes = [b for b, _ in dets]
        gaze = self.gaze  # loaded here, on this thread, whichever thread runs it
        if hands:
            side = self._side_thread.submit(self._timed, "gestures", self.gestures.recognize, frame, t, boxes,
                                            f"h{id_prefix[1:]}", pose)
        else:
            side = self._side_thread.submit(self._timed, "gaze", gaze.estimate, frame, boxes)
        probs = self._timed("expression", self.classifier.classify, frame, boxes)
        faces = [FaceObservation(id=f"{id_prefix}{i}", t=t, box=box, det_score=round(score, 4),
                                 expression={lab: round(float(p), 4) for lab, p in zip(AFFECTNET8, probs[i], strict=True)})
                 for i, (box, score) in enumerate(dets)]
        gazes = self._timed("gaze", gaze.estimate, frame, boxes) if hands else None
        return t, faces, gazes, side

    @staticmethod
    def _collect(started: tuple) -> FrameObservation:
        """The observation of a frame ``_start`` began: its side-thread work (gestures, or the gaze) waited for."""
        t, faces, gazes, side = started
        if gazes is None:  # the gaze ran on the side thread
            gazes, found = side.result(), []
        else:
            found = side.result().hands
        gaze = [g.model_copy(update={"id": f"{f.id}.gaze"}) for f, g in zip(faces, gazes, strict=True)]
        return FrameObservation(t=t, faces=faces, gaze=gaze, hands=found)

    def observe(self, frames: Iterable[tuple[float, np.ndarray]], id_prefix: str, hands: bool,
                first_number: int = 0,
                on_frame: Callable[[float, np.ndarray, FrameObservation], None] | None = None,
                pose: bool = True) -> list[FrameObservation]:
        """Observe each ``(t, frame)``; frame ``n`` (counted from ``first_number``) gets the id prefix
        ``<id_prefix><n>.``. ``on_frame(t, frame, observation)`` runs after each frame's observation is
        complete, in frame order (for work that needs the decoded pixels, e.g. shot cuts or CLIP image
        vectors). With ``hands``, the body-pose model (crossed arms) runs too unless ``pose`` is off. One frame
        deep (see the module doc): at most two decoded frames are held."""
        out: list[FrameObservation] = []
        pending: tuple | None = None  # (frame, started) of the frame whose gestures are still running

        def finish() -> None:
            frame, started = pending
            out.append(self._collect(started))
            if on_frame is not None:
                on_frame(started[0], frame, out[-1])

        with _one_thread():
            for n, (t, frame) in enumerate(frames, start=first_number):
                started = self._start(t, frame, f"{id_prefix}{n}.", hands, pose)
                if pending is not None:
                    finish()
                pending = (frame, started)
            if pending is not None:
                finish()
        return out


@contextlib.contextmanager
def _one_thread():
    """The expression networks on one intra-op thread inside the block (onnxruntime's, ``tools.perception.cpu_onnx``,
    and torch's when torch is loaded: a GPU run), so the side thread gets the other core."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(1)
    try:
        with intra_op_threads(1):
            yield
    finally:
        if torch is not None:
            torch.set_num_threads(before)


@functools.lru_cache(maxsize=4)
def load_engine(config: PerceptionConfig) -> PerceptionEngine:
    """The process-wide engine of ``config`` (built once; its models load on first use)."""
    return PerceptionEngine(config)
