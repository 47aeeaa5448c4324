"""The graph's structure and its picture."""

from __future__ import annotations

import pytest

from app.draw import main as draw_main
from graphs.affect_graph import NODE_NAMES, build_graph


def test_graph_has_every_role_and_the_requery_loop():
    g = build_graph().get_graph()
    assert set(NODE_NAMES) <= set(g.nodes)
    edges = {(e.source, e.target, e.conditional) for e in g.edges}
    assert ("verifier", "query_refiner", True) in edges
    assert ("query_refiner", "candidate_localizer", False) in edges
    assert ("verifier", "emotion_reasoner", True) in edges
    assert ("intent_interpreter", "person_grounder", False) in edges
    assert ("person_grounder", "candidate_localizer", False) in edges


def test_the_llm_tasks_are_the_nodes_tasks():
    """Every task an LLM is asked comes from a node: person grounding and query refinement included."""
    from graphs.affect_graph import TASKS

    assert set(TASKS) == {"interpret_intent", "ground_person", "refine_query", "judge_emotion", "write_rationale",
                          "choose_option"}


def test_draw_writes_png_and_mermaid(tmp_path, capsys):
    png = tmp_path / "graph.png"
    assert draw_main(["--png", str(png), "--mermaid"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    mermaid = capsys.readouterr().out
    assert "verifier -.-> query_refiner" in mermaid


def _studio_graph():
    """The graph ``langgraph.json`` names, imported as LangGraph Studio imports it."""
    import importlib
    import json

    from tests.conftest import REPO

    spec = json.loads((REPO / "langgraph.json").read_text())["graphs"]["affectseek"]
    module_path, attr = spec.split(":")
    return getattr(importlib.import_module(module_path.removeprefix("./").removesuffix(".py").replace("/", ".")), attr)


def test_studio_shows_the_graph_the_command_line_runs_with_every_role():
    from graphs.affect_graph import compiled_graph

    graph = _studio_graph()
    assert graph is compiled_graph()
    assert set(NODE_NAMES) <= set(graph.get_graph().nodes)


def test_langgraph_json_graph_runs_from_plain_context(cache_root):
    """What LangGraph Studio does: invoke the graph with a JSON context naming the video; the moments are
    those the command line's path gives for the same question."""
    from graphs.pipeline import answer_query
    from tests.conftest import SAMPLE

    query = "when does the audience enjoy the show?"
    state = _studio_graph().invoke({"query": query}, context={"video": str(SAMPLE), "cache_dir": str(cache_root)})
    assert state["intent"].target_emotions[0] == "happiness"
    answer = answer_query(SAMPLE, query, cache_dir=cache_root)
    assert [(m.start_s, m.end_s, m.emotion) for m in state["moments"]] == [
        (m.start_s, m.end_s, m.emotion) for m in answer.moments]
    assert {"intent_interpreter", "verifier", "rationale_writer"} <= set(_node_names_run(query, cache_root))


def test_studio_context_reads_the_settings_ask_reads(cache_root, monkeypatch):
    """A plain context resolves with the ``AFFECTSEEK_*`` settings ``ask`` would read (here at most one moment and
    the hand-set fusion), not with built-in defaults; the same values and settings give the same context."""
    from graphs.affect_graph import GraphContext, resolve_context
    from tests.conftest import SAMPLE

    monkeypatch.delenv("AFFECTSEEK_CONFIG", raising=False)
    monkeypatch.setenv("AFFECTSEEK_TOP_K", "1")
    monkeypatch.setenv("AFFECTSEEK_FUSION", "hand")
    plain = GraphContext(video=str(SAMPLE), cache_dir=str(cache_root))
    ctx = resolve_context(plain)
    assert (ctx.settings.top_k, ctx.settings.fusion) == (1, "hand") and resolve_context(plain) is ctx
    state = _studio_graph().invoke({"query": "when does the audience enjoy the show?"},
                                   context={"video": str(SAMPLE), "cache_dir": str(cache_root)})
    assert len(state["moments"]) == 1
    monkeypatch.setenv("AFFECTSEEK_TOP_K", "2")
    assert resolve_context(plain).settings.top_k == 2


def _node_names_run(query: str, cache_root) -> list[str]:
    """The nodes a Studio run passes through, as LangGraph streams their updates."""
    from tests.conftest import SAMPLE

    context = {"video": str(SAMPLE), "cache_dir": str(cache_root)}
    return [node for chunk in _studio_graph().stream({"query": query}, context=context, stream_mode="updates")
            for node in chunk]


def _offline_rationale(query: str, emotion: str, confidence: float, evidence: list[dict]):
    """The offline reasoner's rationale draft for a 0-6 s moment with ``evidence`` records."""
    from agents.llm import OfflineReasoner
    from agents.rationale import WRITE_RATIONALE

    moment = {"start_s": 0.0, "end_s": 6.0, "emotion": emotion, "confidence": confidence}
    return OfflineReasoner().structured(WRITE_RATIONALE, {"query": query, "moment": moment, "evidence": evidence})


def test_offline_rationale_quotes_the_utterance_that_answers_the_question():
    said = [{"id": "c0.t0", "modality": "verbal", "tool": "asr", "start_s": 0.0, "end_s": 1.0,
             "detail": 'person 0 says "congressional district,"'},
            {"id": "c0.t1", "modality": "verbal", "tool": "asr", "start_s": 1.5, "end_s": 3.7,
             "detail": 'person 0 says "and I\'m currently in D.C. for my second week of new"'}]
    draft = _offline_rationale("when does she mention being new?", "neutral", 0.5, said)
    assert "second week of new" in draft.summary and "(1.5-3.7 s)" in draft.summary
    assert [s.evidence_ids for s in draft.steps] == [["c0.t0", "c0.t1"]]  # the step still cites both


def test_offline_rationale_leads_with_the_face_when_look_asks_how_someone_seems_and_with_the_gaze_when_where():
    """"Who looks uneasy?" asks how someone seems: the face showing the moment's fear leads, not the gaze
    observation that shares the word "looks"; "when does she look at the camera?" asks where she looks."""
    seen = [{"id": "c1.c1", "modality": "visual", "tool": "mesh", "start_s": 3.1, "end_s": 5.5,
             "detail": "person 1 looks at the camera in 9 of 9 frames"},
            {"id": "c1.v0", "modality": "visual", "tool": "faces", "start_s": 4.8, "end_s": 5.0,
             "detail": "person 1's face at x=0.50, y=0.45 shows fear (p=0.55)"}]
    for query in ("who looks uneasy, and what do they say?", "when does she look nervous?",
                  "when does he look like he has seen a ghost?", "when does she give him a worried look?"):
        summary = _offline_rationale(query, "fear", 0.66, seen).summary
        assert summary.startswith("fear (confidence 0.66): person 1's face at x=0.50, y=0.45 shows fear"), query
    for query in ("when does she look at the camera?", "when is she looking away from the camera?"):
        summary = _offline_rationale(query, "fear", 0.66, seen).summary
        assert summary.startswith("fear (confidence 0.66): person 1 looks at the camera in 9 of 9 frames"), query


def test_offline_rationale_leads_with_the_whole_first_face_observation():
    """A face detail holds "; " inside its parentheses: the summary must quote it whole."""
    seen = [{"id": "c0.f0", "modality": "visual", "tool": "faces", "start_s": 0.5, "end_s": 2.0,
             "detail": "person 0's face at x=0.54, y=0.58 shows surprise (p=0.61; 3 frames)"},
            {"id": "c0.f1", "modality": "visual", "tool": "faces", "start_s": 2.0, "end_s": 3.0,
             "detail": "person 1's face at x=0.20, y=0.40 shows happiness (p=0.52)"}]
    draft = _offline_rationale("when is she surprised?", "surprise", 0.6, seen)
    assert "shows surprise (p=0.61; 3 frames) (0.5-2.0 s)" in draft.summary
    assert draft.summary.count("(") == draft.summary.count(")")


def test_offline_rationale_cites_a_still_face_read_alike_in_successive_frames_once():
    """A still shot's face gives the same reading in every frame the verifier reads: the step and the summary cite it
    once over the frames' joined span (the rationale repeated it once per frame), still citing every record; the same
    reading after a skipped step adds its own span to the citation."""
    detail = "person 17's face at x=0.50, y=0.53 shows contempt (p=0.54)"
    # 4 fps on a 30 fps video: the third frame snaps to 89.533 s, a video frame after the second's span ends
    seen = [{"id": f"c24.v{n}", "modality": "visual", "tool": "faces", "start_s": start, "end_s": start + 0.25,
             "detail": detail} for n, start in enumerate((89.0, 89.25, 89.533))]
    seen += [{"id": "c24.v3", "modality": "visual", "tool": "faces", "start_s": 91.0, "end_s": 91.25, "detail": detail},
             {"id": "c24.c17", "modality": "visual", "tool": "mesh", "start_s": 88.9, "end_s": 92.6,
              "detail": "person 17 looks at the camera in 15 of 15 frames"}]
    draft = _offline_rationale("when does someone look down on others?", "contempt", 0.54, seen)
    assert draft.steps[0].text == (f"{detail} (89.0-89.8 s, 91.0-91.2 s); "
                                   "person 17 looks at the camera in 15 of 15 frames (88.9-92.6 s)")
    assert draft.steps[0].evidence_ids == ["c24.v0", "c24.v1", "c24.v2", "c24.v3", "c24.c17"]
    assert draft.summary == f"contempt (confidence 0.54): {detail} (89.0-89.8 s, 91.0-91.2 s)."
    shuffled = [seen[1], seen[0], {**seen[2], "start_s": 89.4}, *seen[3:]]  # out of order, overlapping: joined alike
    assert _offline_rationale("when does someone sneer?", "contempt", 0.54, shuffled).steps[0].text == draft.steps[0].text
    other = {"id": "c24.v4", "modality": "visual", "tool": "faces", "start_s": 89.25, "end_s": 89.5,
             "detail": "person 18's face at x=0.20, y=0.50 shows neutral (p=0.61)"}
    between = [seen[0], other, *seen[1:3]]  # another face read in between: each face cited once
    assert _offline_rationale("when does someone sneer?", "contempt", 0.54, between).steps[0].text == (
        f"{detail} (89.0-89.8 s); {other['detail']} (89.2-89.5 s)")
    seen[3]["detail"] = detail.replace("0.54", "0.61")  # another reading: cited apart
    assert _offline_rationale("when does someone sneer?", "contempt", 0.54, seen).steps[0].text.startswith(
        f"{detail} (89.0-89.8 s); {seen[3]['detail']} (91.0-91.2 s); ")


def test_offline_rationale_names_the_voice_when_it_carries_the_label_and_what_was_read_when_nothing_shows_it():
    """A sad shot whose face the detector missed: the gaze of another face and the voice were observed, and the voice
    read sadness. The summary said "no face or speech was observed" (no gaze) or led with the gaze; it now names the
    voice. A label only the question gave says what the voice read instead; with nothing at all, that nothing was."""
    gaze = {"id": "c3.c2", "modality": "visual", "tool": "mesh", "start_s": 10.7, "end_s": 13.9,
            "detail": "person 2 looks at the camera in 12 of 12 frames"}
    voice = {"id": "c3.ve", "modality": "vocal", "tool": "voice8", "start_s": 10.7, "end_s": 13.9,
             "detail": "the voice sounds sadness (p=0.75; arousal -0.11)"}
    summary = _offline_rationale("when is he close to tears?", "sadness", 0.4, [gaze, voice]).summary
    assert summary == "sadness (confidence 0.40): the voice sounds sadness (p=0.75; arousal -0.11) (10.7-13.9 s)."
    summary = _offline_rationale("when is he close to tears?", "sadness", 0.4, [voice]).summary
    assert summary == "sadness (confidence 0.40): the voice sounds sadness (p=0.75; arousal -0.11) (10.7-13.9 s)."
    # a question naming the gaze keeps it first, the voice beside it
    summary = _offline_rationale("when does he look at the camera?", "sadness", 0.4, [gaze, voice]).summary
    assert summary.startswith("sadness (confidence 0.40): person 2 looks at the camera")
    assert "sounds sadness" in summary
    # a face showing the label leads alone
    face = {"id": "c3.v0", "modality": "visual", "tool": "faces", "start_s": 11.0, "end_s": 11.2,
            "detail": "person 2's face at x=0.50, y=0.50 shows sadness (p=0.61)"}
    summary = _offline_rationale("when is he close to tears?", "sadness", 0.6, [gaze, face, voice]).summary
    assert "shows sadness" in summary and "voice" not in summary
    happy = {**voice, "detail": "the voice sounds happiness (p=0.67; neutral 0.30; arousal +0.33)"}
    summary = _offline_rationale("when is he calm?", "neutral", 0.06, [happy]).summary
    assert summary == ("neutral (confidence 0.06): no face or words were observed; the voice sounds happiness "
                       "(p=0.67; neutral 0.30; arousal +0.33) (10.7-13.9 s).")
    prosody = {**voice, "id": "c3.a0", "tool": "prosody",
               "detail": "voice level -20.0 dBFS RMS (peak -8.0), 3.0 words/s"}
    summary = _offline_rationale("when is he calm?", "neutral", 0.06, [prosody]).summary
    assert summary == ("neutral (confidence 0.06): no face or words were observed; voice level -20.0 dBFS RMS "
                       "(peak -8.0), 3.0 words/s (10.7-13.9 s).")
    summary = _offline_rationale("when is he calm?", "neutral", 0.06, []).summary
    assert summary == "neutral (confidence 0.06): no face, words or voice were observed."


#: The faceres+face8 reading of a recorded fear shot (Javanese development clip, 23.92-26.4 s of a bench video) at 4 fps:
#: (time s, top label, its p, p(fear)). Fear holds at 0.15-0.28 throughout while the top label flickers.
FEAR_SHOT = [(24.24, "neutral", 0.30, 0.20), (24.48, "anger", 0.31, 0.25), (24.76, "anger", 0.33, 0.15),
             (25.0, "anger", 0.30, 0.23), (25.24, "sadness", 0.29, 0.23), (25.48, "anger", 0.30, 0.27),
             (25.76, "fear", 0.28, 0.28), (26.0, "fear", 0.26, 0.26), (26.24, "fear", 0.27, 0.27)]


def test_an_expression_spans_the_frames_at_half_its_peak_or_more():
    from tools.signals.stretches import onset_offset

    times, fear = [f[0] for f in FEAR_SHOT], [f[3] for f in FEAR_SHOT]
    assert onset_offset(times, fear, 0.25, (23.92, 26.4)) == [24.115, 26.365]  # every frame, each +-0.125 s
    assert onset_offset(times, fear, 0.25, (24.2, 26.3)) == [24.2, 26.3]  # inside the candidate
    smile = [0.05, 0.1, 0.8, 0.9, 0.85, 0.3, 0.05]  # a smile's rise, apex and fall
    assert onset_offset([0.5 * i for i in range(7)], smile, 0.5, (0.0, 4.0)) == [0.75, 2.25]
    assert onset_offset([1.0, 2.0], [0.0, 0.0], 0.25, (0.0, 3.0)) is None


def test_the_judged_span_runs_from_the_expressions_onset_to_its_offset_not_where_its_label_tops_a_frame():
    """The fear shot above, judged fear: its span is the shot's frames at half the fear peak or more (every frame: tIoU
    0.91 with the shot), not the last three frames whose top label is fear (0.73 s, tIoU 0.29; the moment drawn from
    it grew to the shot's last second, tIoU 0.40)."""
    from agents.emotion import offline_judge
    from tools.signals.stretches import onset_offset

    frames = [{"t": t, "top": top, "p": p} for t, top, p, _ in FEAR_SHOT]
    shown = onset_offset([f[0] for f in FEAR_SHOT], [f[3] for f in FEAR_SHOT], 0.25, (23.92, 26.4))
    mean = {"fear": 0.24, "anger": 0.22, "sadness": 0.2, "neutral": 0.18, "surprise": 0.16}
    inputs = {"labels": [], "target_emotions": ["fear"], "span": [23.92, 26.4], "verbal": {}, "vocal": {},
              "visual": {"expression_mean": mean, "frames": frames, "frame_step_s": 0.25, "shown_s": {"fear": shown}}}
    j = offline_judge(inputs)
    assert j.emotion == "fear" and (j.start_s, j.end_s) == pytest.approx((24.115, 26.365), abs=0.006)  # to 10 ms
    del inputs["visual"]["shown_s"]  # observations without onsets (a record from before them): the frames it tops
    j = offline_judge(inputs)
    assert (j.start_s, j.end_s) == pytest.approx((25.635, 26.365), abs=0.006)


def test_offline_judge_keeps_its_span_inside_a_candidate_with_millisecond_edges():
    """A candidate ending at 603.368 s (a video's last clip) once came back as 603.37 s, which the span
    check rejects: the query failed on the video's last seconds."""
    from agents.emotion import offline_judge

    frames = [{"t": t, "top": "happiness", "p": 0.9} for t in (600.1, 601.3, 603.3)]
    j = offline_judge({"labels": [], "target_emotions": ["happiness"], "span": [600.0, 603.368],
                       "visual": {"expression_mean": {"happiness": 0.9, "neutral": 0.1}, "frames": frames,
                                  "frame_step_s": 0.25},
                       "verbal": {}, "vocal": {}})
    assert j.emotion == "happiness"
    assert 600.0 <= j.start_s < j.end_s <= 603.368


def test_a_behaviour_moment_is_labelled_by_the_faces_around_the_gesture_not_the_whole_candidate():
    """A pointing at 5.0-5.25 s in a 0-10 s shot whose faces mostly smile but frown around the pointing: the moment
    (4.0-6.25 s, the gesture +- 1 s) reads anger, what the pointer's face shows there. Where the words match the
    question better than the gesture (a question about what is said), the words set the span and the whole shot's
    faces the label, as before."""
    from agents.behaviour_evidence import GESTURE_PAD_S
    from agents.emotion import offline_judge

    shot = {"happiness": 0.6, "anger": 0.2, "neutral": 0.2}
    around = {"happiness": 0.1, "anger": 0.7, "neutral": 0.2}
    inputs = {"labels": [], "target_emotions": [], "span": [0.0, 10.0], "vocal": {},
              "visual": {"expression_mean": shot, "frame_step_s": 0.25},
              "verbal": {"span": [2.0, 8.0], "query_similarity": 0.1},
              "behaviour": {"span": [5.0, 5.25], "evidence_id": "c0.g0", "match": 0.6, "expression_mean": around}}
    j = offline_judge(inputs)
    assert j.emotion == "anger" and (j.start_s, j.end_s) == (5.0 - GESTURE_PAD_S, 5.25 + GESTURE_PAD_S)
    inputs["verbal"]["query_similarity"] = 0.7
    j = offline_judge(inputs)
    assert j.emotion == "happiness" and (j.start_s, j.end_s) == (2.0, 8.0)
    del inputs["behaviour"]["expression_mean"]  # no face seen around the gesture: the shot's faces
    inputs["verbal"]["query_similarity"] = 0.1
    assert offline_judge(inputs).emotion == "happiness"
