"""Gaze geometry and gaze/pointing events on constructed input; looking-at-camera on a real clip."""

from __future__ import annotations

import json

import pytest

from tests.conftest import shared_media
from tools.core.frames import iter_frames
from tools.core.schema import Box, Gaze
from tools.perception.faces import load_face_detector
from tools.perception.gaze import load_gaze_estimator, who_looks_at_whom
from tools.signals.events import gaze_and_pointing_events
from tools.signals.social import Pointing, SocialFrame, SpeechTurn

LEFT = Box(x0=0.1, y0=0.3, x1=0.2, y1=0.5)
RIGHT = Box(x0=0.7, y0=0.3, x1=0.8, y1=0.5)


def test_gaze_ray_against_face_boxes():
    # left face looks right (+x), right face looks left: each looks at the other
    g = who_looks_at_whom([(0.6, 0.0), (-0.5, 0.02)], [LEFT, RIGHT], (640, 360))
    assert [x.looking_at for x in g] == [1, 0]
    # looking up and away hits nobody; a short gaze vector means looking at the camera
    g = who_looks_at_whom([(0.0, -0.8), (0.05, 0.05)], [LEFT, RIGHT], (640, 360))
    assert g[0].looking_at is None and g[0].looking_at_camera is False
    assert g[1].looking_at_camera is True and g[1].looking_at is None
    assert who_looks_at_whom([None], [LEFT], (640, 360))[0] == Gaze()


def _frame(t, a_at, b_at, point=None):
    gazes = [Gaze(id=f"a{t}", looking_at=a_at), Gaze(id=f"b{t}", looking_at=b_at)]
    return SocialFrame(t=t, tracks=[7, 9], gaze=gazes, points=[point] if point else [])


def test_mutual_one_sided_and_pointing_events():
    frames = [_frame(0.0, 1, 0), _frame(0.25, 1, 0), _frame(0.5, 1, None), _frame(0.75, 1, None),
              _frame(3.0, None, None, Pointing(pointer=9, target=7, record_id="h3"))]
    events = gaze_and_pointing_events(frames, max_gap_s=0.3)
    got = [(e.type, e.participants, e.start_s, e.end_s) for e in events]
    assert got == [("mutual_gaze", [7, 9], 0.0, 0.25), ("gaze_aversion", [9, 7], 0.5, 0.5),
                   ("one_sided_gaze", [7, 9], 0.5, 0.75), ("pointing_at", [9, 7], 3.0, 3.0)]
    assert events[0].detail == "person 7 and person 9 look at each other"
    assert events[2].observation_ids == ["a0.5", "a0.75"] and events[2].confidence == 1.0


@pytest.mark.slow
def test_talking_head_looks_at_the_camera():
    # WDA_KatieHill_000.mp4 (watched): she speaks straight to the camera throughout
    det, gaze = load_face_detector(), load_gaze_estimator()
    looks = [gaze.estimate(f, [b for b, _ in det.detect(f)])[0].looking_at_camera
             for _, f in iter_frames(shared_media("WDA_KatieHill_000.mp4"), 1.0)]
    assert sum(bool(x) for x in looks) >= 7 and len(looks) == 8


def test_aversion_addressing_and_exclusion():
    def fr(t, tracks, looks):
        return SocialFrame(t=t, tracks=tracks, gaze=[Gaze(id=f"g{t}.{i}", looking_at=looks[i]) for i in range(len(tracks))])

    # 1 and 2 look at each other, then 1 looks away while 2 keeps looking: aversion by 1
    ev = gaze_and_pointing_events([fr(0.0, [1, 2], [1, 0]), fr(0.5, [1, 2], [None, 0])], max_gap_s=0.6)
    assert ("gaze_aversion", [1, 2], 0.5) in [(e.type, e.participants, e.start_s) for e in ev]
    # 1 speaks while looking at 2: 1 addresses 2; 3 is on screen, ignored and silent for 4 s: excluded
    frames = [fr(t / 2, [1, 2, 3], [1, 0, None]) for t in range(10)]
    ev = gaze_and_pointing_events(frames, max_gap_s=0.6, turns=[SpeechTurn(start_s=0.0, end_s=5.0, speaker=1, record_id="s0")], min_excluded_s=3.0)
    kinds = {(e.type, tuple(e.participants)) for e in ev}
    assert ("addressed_by_speech", (1, 2)) in kinds and ("excluded", (3,)) in kinds
    assert ("excluded", (1,)) not in kinds and ("excluded", (2,)) not in kinds
    assert [e.id for e in ev] == [f"g{i}" for i in range(len(ev))]


def test_one_person_alone_on_screen_is_never_excluded():
    def fr(t):
        return SocialFrame(t=t, tracks=[4], gaze=[Gaze(id=f"g{t}", looking_at=None)])

    frames = [fr(t / 2) for t in range(12)]
    # speech of no known speaker (a still picture over speech: no lips move), or of someone off screen
    for turn in (SpeechTurn(start_s=0.0, end_s=6.0, speaker=None, record_id="s0"),
                 SpeechTurn(start_s=0.0, end_s=6.0, speaker=8, record_id="s0")):
        ev = gaze_and_pointing_events(frames, max_gap_s=0.6, turns=[turn], min_excluded_s=3.0)
        assert not [e for e in ev if e.type == "excluded"]


def test_neighbours_watching_the_same_way_share_attention_instead_of_looking_at_each_other():
    # the sample's audience at 9.0 s (directions measured there): person 5 (right) and person 6 (left,
    # further back) both look left toward the stage; the ray of 5 passes over 6
    boxes = [Box(x0=0.58, y0=0.28, x1=0.71, y1=0.5), Box(x0=0.49, y0=0.17, x1=0.6, y1=0.38)]
    assert [g.looking_at for g in who_looks_at_whom([(-1.453, 0.099), (-2.087, -0.06)], boxes, (640, 360))] == [None, None]
    # the same ray with 6 turned toward 5 is a look at 6
    assert who_looks_at_whom([(-1.453, 0.099), (1.2, 0.05)], boxes, (640, 360))[0].looking_at == 1
    # 6 in profile (no mesh, no direction): the ray still names 6
    assert who_looks_at_whom([(-1.453, 0.099), None], boxes, (640, 360))[0].looking_at == 1


@pytest.mark.slow
def test_pointing_question_on_the_sample_answers_with_the_performers_gestures(cache_root, tmp_path):
    # hamilton_short.mp4 (watched): the performer speaks and gestures, pointing and showing an open palm,
    # between 4 and 7.5 s
    from agents.schema import Answer
    from app.inspect import main as inspect_main
    from tests.conftest import SAMPLE, run_cli

    out = tmp_path / "a.json"
    proc = run_cli(str(SAMPLE), "when does he point at someone?", "--json", str(out), "--cache-dir", str(cache_root),
                   "--quiet")
    assert proc.returncode == 0, proc.stderr
    answer = Answer.model_validate_json(out.read_text())
    assert answer.intent.target_emotions == []  # a question about behaviour, not a feeling
    top = answer.moments[0]
    assert top.start_s < 8.4 and top.end_s > 4.8 and "points with the index finger" in top.rationale
    timeline = tmp_path / "inspect.json"
    assert inspect_main([str(SAMPLE), "--json", str(timeline), "--cache-dir", str(cache_root)]) == 0
    gestures = {(e["type"]) for e in json.loads(timeline.read_text())["events"] if 4.8 <= e["start_s"] <= 8.4}
    assert {"pointing", "open_palm"} <= gestures


@pytest.mark.slow
@pytest.mark.parametrize("query", ["when does he point at the crowd?", "when does the performer point at someone?"])
def test_a_pointing_question_leads_with_the_pointing_and_reads_the_pointers_face_there(query, cache_root):
    """Watched: the performer points between 4 and 7.5 s; the hand model reads an audience member's thumbs-up at 8.4 s.
    These two wordings led with the audience's shot (read neutral 0.16) over the pointing (read happiness 0.09): a
    question that names no feeling ranks its moments by how well they show what it asks. The pointing's label is what
    the faces of the person pointing show around it, and a face showing it is cited."""
    from graphs.pipeline import answer_query
    from tests.conftest import SAMPLE

    answer = answer_query(SAMPLE, query, cache_dir=cache_root)
    top = answer.moments[0]
    assert top.start_s < 7.5 and top.end_s > 4.0 and "points with the index finger" in top.rationale
    pointer = next(e.person for e in top.evidence if "points with the index finger" in e.detail)
    faces = [e for e in top.evidence if e.modality == "visual" and e.person == pointer and top.start_s <= e.start_s
             and e.end_s <= top.end_s and f"shows {top.emotion} (" in e.detail]  # his face around it, showing the label
    assert faces
    assert f"shows {top.emotion} (" in next(s.text for s in top.steps if s.modality == "visual")


def test_a_question_naming_a_gesture_or_gaze_names_no_emotion_but_a_feeling_keeps_its_own():
    from agents.intent import offline_intent

    assert offline_intent({"query": "when does he point at someone?"}).target_emotions == []
    assert offline_intent({"query": "when does she look at him?"}).target_emotions == []
    assert offline_intent({"query": "when is he angry?"}).target_emotions[0] == "anger"
    assert "contempt" in offline_intent({"query": "when does she look scornful?"}).target_emotions


@pytest.mark.slow
def test_questions_asking_which_feeling_find_the_people_or_the_gesture_they_name(cache_root):
    """Watched: the audience is shown laughing at 7.9-10 s, the performer points between 4 and 7.5 s. "How is the
    audience feeling?" reads the audience's faces for any feeling and leads with their shot; "what emotion does he
    show when he points?" was read as asking for neutral and led with a profile close-up (1.5-3.6 s): it now leads
    with the pointing, labelled by what the pointer's face shows there. "How does the crowd react to him?" led with
    the performer's wide shot (0-1.5 s; "him" grounded him too): the crowd's feeling is asked, so their shot leads.
    "How does the performer feel while he speaks?" led with a shot without his face: speaking without what is said
    places nothing, so his face, where it shows a feeling most, does."""
    from graphs.pipeline import answer_query
    from tests.conftest import SAMPLE

    audience = answer_query(SAMPLE, "how is the audience feeling?", cache_dir=cache_root)
    assert audience.intent.target_emotions == [] and audience.intent.asks_feeling
    top = audience.moments[0]
    grounded = {p for g in audience.people for p in g.persons}
    assert top.start_s >= 7.8 and {e.person for e in top.evidence if e.modality == "visual"} & grounded
    pointing = answer_query(SAMPLE, "what emotion does he show when he points?", cache_dir=cache_root)
    top = pointing.moments[0]
    assert top.start_s < 7.5 and top.end_s > 4.0 and "points with the index finger" in top.rationale
    crowd = answer_query(SAMPLE, "how does the crowd react to him?", cache_dir=cache_root)  # the audience's feeling
    top = crowd.moments[0]
    assert top.start_s >= 7.8 and {e.person for e in top.evidence if e.modality == "visual"} & grounded
    performer = answer_query(SAMPLE, "how does the performer feel while he speaks?", cache_dir=cache_root)
    [him] = next(g.persons for g in performer.people if g.phrase == "the performer")
    assert performer.moments[0].end_s <= 7.9 and him in {e.person for e in performer.moments[0].evidence
                                                         if e.modality == "visual"}
