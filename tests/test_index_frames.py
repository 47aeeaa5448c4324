"""The verifier reads the index pass's own frames back instead of observing them again, with the same records."""

from __future__ import annotations

import shutil

from indexing.build import open_index
from indexing.observe import INDEX_FRAMES_DIR, observe_span, renumbered
from memory.index_config import IndexConfig
from tests.conftest import SAMPLE
from tools.core.schema import AFFECTNET8, Box, FaceObservation, Gaze, HandObservation
from tools.perception.engine import FrameObservation


def test_an_index_frame_renumbered_carries_the_ids_the_engine_gives_that_frame():
    expr = {k: 1 / 8 for k in AFFECTNET8}
    faces = [FaceObservation(id=f"a37.{i}", t=37.0, box=Box(x0=0.1 * i, y0=0.1, x1=0.1 * i + 0.1, y1=0.3),
                             det_score=0.9, expression=expr, track_id=4 + i) for i in range(2)]
    hand = {"t": 37.0, "handedness": "Left", "score": 0.9, "gesture": "point", "extended": ["index"],
            "wrist": (0.5, 0.5), "index_tip": (0.6, 0.5)}
    frame = FrameObservation(t=37.0, faces=faces, gaze=[Gaze(id="a37.0.gaze", looking_at=1), Gaze(id="a37.1.gaze")],
                             hands=[HandObservation(id="h37.0", **hand), HandObservation(id="h37.pose", **hand)])
    out = renumbered(frame, "f18.4.")
    assert [f.id for f in out.faces] == ["f18.4.0", "f18.4.1"] and {f.track_id for f in out.faces} == {None}
    assert [g.id for g in out.gaze] == ["f18.4.0.gaze", "f18.4.1.gaze"] and out.gaze[0].looking_at == 1
    assert [h.id for h in out.hands] == ["h18.4.0", "h18.4.pose"]
    assert out.faces[1].expression == expr and out.faces[1].box == faces[1].box


def test_the_verifier_reads_a_quarter_of_its_frames_from_the_index_and_stores_the_same_records(tmp_path, monkeypatch):
    """...and keeps what it stored for that index alone: after an upgrade that changes the index's format (as new
    shipped weights do), the readings stored beside the old index are not read again."""
    import memory.index_config

    index = open_index(SAMPLE, IndexConfig(), tmp_path)
    assert (index.dir / INDEX_FRAMES_DIR).is_dir()
    counts: dict[str, int] = {}

    def count(name: str, n: int = 1) -> None:
        counts[name] = counts.get(name, 0) + n

    read_back, _ = observe_span(index, 4.0, 0.0, 10.0, count)
    index_frames = [fr for fr in index.faces if fr.t < 10.0]  # the index pass's 1 fps frames, on the same grid
    assert counts["index_frames_reused"] == len(index_frames) >= 9
    assert counts["face_expression_frames"] + counts["index_frames_reused"] == len(read_back)
    shutil.rmtree(index.cache.dir / "perception")
    shutil.rmtree(index.dir / INDEX_FRAMES_DIR)  # as an index stored without its frames: every frame observed
    counts.clear()
    observed, _ = observe_span(index, 4.0, 0.0, 10.0, count)
    assert counts.get("index_frames_reused", 0) == 0 and counts["face_expression_frames"] == len(observed)
    assert len(observed) == len(read_back) >= 36
    assert [fr.model_dump() for fr, _ in observed] == [fr.model_dump() for fr, _ in read_back]
    counts.clear()
    observe_span(index, 4.0, 0.0, 10.0, count)
    assert counts.get("face_expression_frames", 0) == 0 and counts["visual_cached_chunks"] >= 3
    monkeypatch.setattr(memory.index_config, "INDEX_FORMAT", memory.index_config.INDEX_FORMAT + 1)
    counts.clear()
    again, _ = observe_span(index, 4.0, 0.0, 10.0, count)
    assert counts.get("visual_cached_chunks", 0) == 0 and counts["face_expression_frames"] == len(again)
    assert {path.parent for _, path in again}.isdisjoint({path.parent for _, path in observed})


def test_between_the_index_frames_the_verifier_leaves_out_the_pose_model(tmp_path, monkeypatch):
    """Body pose (crossed arms, a posture held for seconds) comes from the index's own 1 fps frames where they are
    at hand: the verifier's frames between them run hands, faces and gaze, not the pose model; an index stored without
    its frames gets pose on every frame the verifier reads."""
    from tools.perception.engine import load_engine

    index = open_index(SAMPLE, IndexConfig(), tmp_path)
    gestures = load_engine(IndexConfig().perception()).gestures
    pose_calls, real = [], gestures._pose.process
    monkeypatch.setattr(gestures._pose, "process", lambda frame: pose_calls.append(1) or real(frame))
    counts: dict[str, int] = {}

    def count(name: str, n: int = 1) -> None:
        counts[name] = counts.get(name, 0) + n

    observe_span(index, 4.0, 0.0, 6.0, count)
    assert counts["face_expression_frames"] >= 15 and counts["index_frames_reused"] >= 5 and pose_calls == []
    shutil.rmtree(index.cache.dir / "perception")
    shutil.rmtree(index.dir / INDEX_FRAMES_DIR)
    counts.clear()
    frames, _ = observe_span(index, 4.0, 0.0, 6.0, count)
    assert len(pose_calls) == counts["face_expression_frames"] == len(frames) >= 20


def test_a_question_not_about_gestures_reads_hands_on_the_index_frames_only(tmp_path):
    """With ``hands_between=False`` (the verifier, for a question whose support is not a gesture) the frames between the
    index's 1 fps frames run faces and gaze without the hand models; the index's frames keep their hands, so the performer's
    pointing (watched: 4-7.5 s of the sample) is still seen. A later question that needs every frame's hands reads
    only the gesture model on those frames and gets the records a full reading gives; and the answer to a question
    about a feeling does not depend on what was asked before: read after a full reading, the same records come back."""
    index = open_index(SAMPLE, IndexConfig(), tmp_path)
    counts: dict[str, int] = {}

    def count(name: str, n: int = 1) -> None:
        counts[name] = counts.get(name, 0) + n

    thin, _ = observe_span(index, 4.0, 0.0, 10.0, count, hands_between=False)
    between = counts["face_expression_frames"]
    assert between >= 27 and counts["gesture_frames"] == 0
    at_index = {fr.t for fr in index.faces if fr.t < 10.0}
    assert {fr.t for fr, _ in thin if fr.hands} <= at_index
    assert any(h.gesture == "point" and 4.0 <= h.t < 7.5 for fr, _ in thin for h in fr.hands)
    counts.clear()
    added, _ = observe_span(index, 4.0, 0.0, 10.0, count)
    assert counts.get("face_expression_frames", 0) == 0 and counts["gesture_frames"] == between
    shutil.rmtree(index.cache.dir / "perception")
    counts.clear()
    full, _ = observe_span(index, 4.0, 0.0, 10.0, count)
    assert counts["gesture_frames"] == counts["face_expression_frames"] == between  # every model on those frames
    assert [fr.model_dump() for fr, _ in added] == [fr.model_dump() for fr, _ in full]
    assert [(fr.t, fr.faces, fr.gaze) for fr, _ in full] == [(fr.t, fr.faces, fr.gaze) for fr, _ in thin]
    assert sum(len(fr.hands) for fr, _ in full) > sum(len(fr.hands) for fr, _ in thin)
    counts.clear()
    again, _ = observe_span(index, 4.0, 0.0, 10.0, count, hands_between=False)
    assert counts.get("face_expression_frames", 0) == 0  # the full chunks serve it
    assert [fr.model_dump() for fr, _ in again] == [fr.model_dump() for fr, _ in thin]


def test_a_round_reads_at_the_verifier_rate_only_its_best_candidates_on_the_index_frames(tmp_path):
    """Coarse to fine (``agents.verifier.triage``): every candidate of a round is first read on the index's own 1 fps
    frames; with ``dense_per_round=1`` only the best of them (and any clip too short to hold an index frame) is observed at
    4 fps (and any other that reaches the support threshold there), the others are rejected on the index's reading:
    their faces and hands are the index's frames, cited in a chunk of the index's frames
    (``indexing.observe.index_span``). With
    room for every candidate nothing is read coarsely, and more frames are observed."""
    from agents.llm import load_llm
    from agents.state import RunContext, RunSettings
    from graphs.pipeline import run_graph

    index = open_index(SAMPLE, IndexConfig(), tmp_path)
    query, llm = "when does someone look happy?", load_llm("offline")

    def verified(settings: RunSettings) -> tuple[list, dict[str, int]]:
        ctx = RunContext(index=index, llm=llm, settings=settings)
        state, _ = run_graph(query, ctx)
        return state["verified"], ctx.tool_calls

    coarse, calls = verified(RunSettings(dense_per_round=1, max_requery=0))
    steps = [c.observations.visual.frame_step_s for c in coarse if c.observations.visual.frames]
    assert sorted(set(steps)) == [0.25, 1.0]
    assert calls["index_read_candidates"] == steps.count(1.0) >= 1  # of the sample's four shots, one here
    at_index = set(index.face_times)
    for cand in coarse:
        if cand.observations.visual.frame_step_s == 1.0:  # the index's reading only turns a candidate down
            assert not cand.accepted and cand.support < 0.3
            assert "read on the index's own frames, 1 fps" in cand.reject_reason
            assert {f.t for f in cand.observations.visual.frames} <= at_index
            cited = [e.ref for e in cand.evidence if e.modality == "visual"]
            assert cited and all(ref.startswith("perception/own-frames") for ref in cited)
            assert all(index.cache.resolve(ref)["t"] in at_index for ref in cited)
    shutil.rmtree(index.cache.dir / "perception")
    dense, dense_calls = verified(RunSettings(dense_per_round=100, max_requery=0))
    assert "index_read_candidates" not in dense_calls
    assert [c.clip_id for c in dense] == [c.clip_id for c in coarse]
    assert {c.observations.visual.frame_step_s for c in dense if c.observations.visual.frames} == {0.25}
    assert dense_calls["face_expression_frames"] > calls["face_expression_frames"]


def test_a_round_reads_densely_no_more_candidates_than_an_answer_shows(tmp_path):
    """A question about what is said finds its words in several places, and each reaches the support threshold on
    the index's frames alone (words read alike at any frame rate); a question about a feeling that several shots show
    does the same with faces. A round reads at 4 fps only as many of them as an answer shows (``top_k``), the best
    supported first; the rest are accepted on the index's 1 fps reading, their faces cited from the index's frames.
    With room for every candidate, each accepted one is read at 4 fps."""
    from agents.llm import load_llm
    from agents.state import RunContext, RunSettings
    from graphs.pipeline import run_graph

    index = open_index(SAMPLE, IndexConfig(), tmp_path)

    def verified(query: str, top_k: int) -> list:
        ctx = RunContext(index=index, llm=load_llm("offline"),
                         settings=RunSettings(dense_per_round=1, top_k=top_k, max_requery=0))
        return run_graph(query, ctx)[0]["verified"]

    # "by working a lot harder" runs across the cut at 1.511 s: the words are in two of the sample's shot clips; the
    # performer's grin and the pianist's smile are in three
    for query in ("when does he talk about working harder?", "when does someone look happy?"):
        few = [c for c in verified(query, 1) if c.accepted]
        dense = [c for c in few if c.observations.visual.frame_step_s == 0.25]
        coarse = [c for c in few if c.observations.visual.frame_step_s == 1.0]
        assert len(dense) == 1 and len(coarse) >= 1 and len(few) == len(dense) + len(coarse), query
        assert min(c.support for c in dense) >= 0.3 and min(c.support for c in coarse) >= 0.3
        at_index = set(index.face_times)
        for cand in coarse:
            cited = [e.ref for e in cand.evidence if e.modality == "visual"]
            assert cited and all(ref.startswith("perception/own-frames") for ref in cited)
            faces = [e.ref for e in cand.evidence if e.tool.startswith("mediapipe-face-detection")]
            assert faces and all(index.cache.resolve(ref)["t"] in at_index for ref in faces)
        every = [c for c in verified(query, 5) if c.accepted]
        assert [c.clip_id for c in every] == [c.clip_id for c in few], query
        assert {c.observations.visual.frame_step_s for c in every} == {0.25}


def test_only_a_question_whose_support_is_a_gesture_skips_the_coarse_step(tmp_path):
    """``agents.verifier.asks_gestures``: a question that names no feeling but a gesture ("a thumbs up", "point") or
    whose intent asks for gestures is read at 4 fps throughout (a thumbs up lasts less than the index's 1 s); a
    question about a feeling, about what is said, or about a change is read coarse to fine, and reads hands on the
    index's frames only. On the sample, a question about what is said, with ``dense_per_round=1``, rejects some
    candidates on the index's frames and runs no hand model on the frames it observes."""
    from agents.intent import offline_intent
    from agents.llm import load_llm
    from agents.state import RunContext, RunSettings
    from agents.verifier import asks_gestures
    from graphs.pipeline import run_graph

    def asks(query: str) -> bool:
        return asks_gestures(offline_intent({"query": query}), query)

    assert asks("when does someone give a thumbs up?") and asks("when does he point at someone?")
    assert not asks("when does someone look happy?") and not asks("when does she mention being new?")
    assert not asks("when does her mood change?")
    index = open_index(SAMPLE, IndexConfig(), tmp_path)
    ctx = RunContext(index=index, llm=load_llm("offline"), settings=RunSettings(dense_per_round=1, max_requery=0))
    state, _ = run_graph("when does he talk about being smarter?", ctx)
    coarse = [c for c in state["verified"] if c.observations.visual.frame_step_s == 1.0]
    assert ctx.tool_calls.get("index_read_candidates", 0) == len(coarse) >= 1
    assert all(not c.accepted for c in coarse)
    assert ctx.tool_calls["face_expression_frames"] > 0 and ctx.tool_calls.get("gesture_frames", 0) == 0
