"""Multiple-choice answers about a look (agents.choice): an option is grounded by looks its way, an option that says
its look holds all along is ruled out by one the other way, and a question with no moment still reads what the
candidates checked showed (evals/RESULTS.md section 174)."""

from __future__ import annotations

import pytest

from agents.behaviour_evidence import AWAY_FROM_CAMERA
from agents.choice import NO_MATCH, RULED_OUT, offline_choice, option_scores, ruled_out_by
from graphs.pipeline import answer_query
from tests.conftest import SAMPLE, shared_media
from tools.signals.gaze_words import asked_look, says_throughout

AT_CAMERA = {"id": "c1.c0", "modality": "visual", "detail": "person 0 looks at the camera in 16 of 16 frames",
             "start_s": 0.0, "end_s": 4.0, "look": "toward", "look_target": "camera"}
AWAY = {"id": "c2.w0", "modality": "visual", "detail": f"person 0 {AWAY_FROM_CAMERA} (4 frames in a row; 5 of 16)",
        "start_s": 4.5, "end_s": 5.75, "look": "away", "look_target": "camera"}
VOICE = {"id": "c1.ve", "modality": "vocal", "detail": "the voice sounds happiness (p=0.53; arousal +0.39)",
         "start_s": 0.0, "end_s": 4.0}


@pytest.mark.parametrize(("text", "throughout"), [
    ("No, he keeps looking at the camera", True),
    ("She looks straight at the camera the whole time", True),
    ("Yes, she holds eye contact throughout", True),
    ("She never looks away", True),
    ("She maintains eye contact with the camera", True),
    ("He looks away from the camera at times", False),
    ("Yes, she looks away from the camera", False),
    ("She looks at the camera", False),
    # denied, hedged, excepted, again and again, or another clause's span
    ("No, she does not maintain eye contact the whole time", False),
    ("No, she doesn't always look at the camera", False),
    ("She looks at the camera for almost the whole time", False),
    ("She keeps looking at the camera except for one glance away", False),
    ("He keeps looking away from the camera", False),
    ("She looks at the camera but frowns the whole time", False),
    ("Yes, he keeps his eyes on the camera all the time", True),
    # the first look's clause is read, a negation after the span holds it, a condition takes it back
    ("He glances away once but otherwise keeps looking at the camera", False),
    ("She keeps looking at the camera and looks away only once", False),
    ("He looks at the camera the whole time, never looking away", True),
    ("He keeps looking at the camera without looking away", True),
    ("She isn't shy, she looks at the camera the whole time", True),
    ("Not at all: she looks at the camera the whole time", True),
    ("She always looks away when he speaks", False),
    ("He never looks at the camera until the very end", False),
])
def test_a_look_said_to_hold_all_along(text, throughout):
    assert says_throughout(text) is throughout


def test_a_look_followed_by_when_it_happens_is_still_a_look_at_the_camera():
    """"at the camera the whole time" was no look: the words after the camera were read as its owner's."""
    assert asked_look("He looks straight at the camera the whole time") == ("toward", "camera")
    assert asked_look("when does she look at the camera at the end?") == ("toward", "camera")
    assert asked_look("when does she look at her phone?") is None
    # a possessive "her" still owns what follows it
    assert asked_look("When does he stare at her every move?") is None
    assert asked_look("When does she glance at her most recent message?") is None
    # eyes kept on or taken off someone or the camera
    assert asked_look("Does he keep his eyes on the camera all the time?") == ("toward", "camera")
    assert asked_look("when does she take her eyes off him?") == ("away", "other")
    assert asked_look("when does she take her eyes off the road?") is None
    # a negation in another clause does not turn the look round
    assert asked_look("He is never nervous and looks at the camera") == ("toward", "camera")


def _inputs(options, evidence, moments=("m",)):
    return {"question": "Does she look away from the camera?", "options": options, "evidence": evidence,
            "moments": list(moments),
            "evidence_of": "the moments and the looks of the candidates checked" if moments else "the candidates checked"}


def test_a_look_option_is_grounded_by_looks_its_way_only():
    """The encoder puts "looks away from the camera" near "looks at the camera", and before this the option of a
    look away took its grounding from a look at the camera or a voice."""
    options = ["Yes, she looks away from the camera", "No, she keeps looking at the camera"]
    scores, sim = option_scores(_inputs(options, [AT_CAMERA, VOICE]))
    assert scores[0] == NO_MATCH and sim[0].max() == NO_MATCH
    assert scores[1] > 0.3
    choice = offline_choice(_inputs(options, [AT_CAMERA, VOICE]))
    assert choice.option == 1 and choice.steps[0].evidence_ids == ["c1.c0"]
    assert "no evidence its way" in choice.steps[-1].text


def test_a_look_held_all_along_is_ruled_out_by_one_the_other_way():
    options = ["Yes, she looks away from the camera", "No, she keeps looking at the camera"]
    scores, _ = option_scores(_inputs(options, [AT_CAMERA, AWAY]))
    assert scores[1] == RULED_OUT and scores[0] > 0.3
    choice = offline_choice(_inputs(options, [AT_CAMERA, AWAY]))
    assert choice.option == 0
    ruling = next(s for s in choice.steps if s.text.startswith("Option B says"))
    assert ruling.evidence_ids == ["c2.w0"] and ruling.modality == "visual"
    assert "next best B (ruled out)" in choice.steps[-1].text
    # "at times" is not contradicted by looks at the camera: both are grounded
    scores, _ = option_scores(_inputs(["She looks away from the camera at times", "She looks at the camera"],
                                      [AT_CAMERA, AWAY]))
    assert min(scores) > 0.3


def test_only_the_person_the_option_is_about_rules_it_out():
    """Someone else's look away does not rule out "he looks at the camera the whole time": the question's people
    (``agents.grounding``) decide whose looks count, else whoever's looks ground the option."""
    other_away = {**AWAY, "id": "c2.w4", "person": 4, "detail": f"person 4 {AWAY_FROM_CAMERA} (3 frames in a row)"}
    options = ["He looks straight at the camera the whole time", "He looks away from the camera at times"]
    at_camera = {**AT_CAMERA, "person": 0}
    scores, _ = option_scores({**_inputs(options, [at_camera, other_away]), "people": [0]})
    assert scores[0] > 0.3
    scores, _ = option_scores(_inputs(options, [at_camera, other_away]))  # no one grounded: person 0's looks ground it
    assert scores[0] > 0.3
    scores, _ = option_scores(_inputs(options, [at_camera, {**other_away, "person": 0}]))
    assert scores[0] == RULED_OUT
    # a look at someone names no one looked at: "he never looks at her" is not ruled out by his look at another
    at_other = {"id": "c1.s0", "modality": "visual", "detail": "person 0 looks at person 2, who does not look back",
                "start_s": 0.0, "end_s": 2.0, "person": 0, "look": "toward", "look_target": "person"}
    assert ruled_out_by("He never looks at her", [at_other], [0]) is None


def test_the_looks_of_every_candidate_checked_are_read():
    """A look held all along is a claim about the whole video: a look away in a candidate that became no moment
    still rules it out; what else such a candidate showed is not read while the moments cite evidence."""
    from agents.choice import choice_inputs
    from agents.schema import Evidence, Moment, VerifiedCandidate

    def item(**kw):
        return Evidence(modality="visual", tool="face_mesh", start_s=0.0, end_s=2.0, person=0, ref="r", **kw)

    moment = Moment(start_s=0.0, end_s=2.0, emotion="neutral", affectnet8="neutral", confidence=0.5, rationale="r",
                    evidence=[item(id="c0.c0", detail=AT_CAMERA["detail"], look="toward", look_target="camera")])
    checked = [VerifiedCandidate(clip_id="c5", start_s=20.0, end_s=22.0, retrieval_score=0.1, source="clips",
                                 support=0.1, accepted=False,
                                 evidence=[item(id="c5.w0", detail=AWAY["detail"], look="away", look_target="camera"),
                                           item(id="c5.v0", detail="person 0's face shows sadness (p=0.61)")])]
    inputs = choice_inputs("q", ["a", "b"], [moment], checked, people=[0])
    assert [e["id"] for e in inputs["evidence"]] == ["c0.c0", "c5.w0"] and inputs["people"] == [0]
    assert inputs["evidence_of"] == "the moments and the looks of the candidates checked"
    inputs = choice_inputs("q", ["a", "b"], [], checked)
    assert [e["id"] for e in inputs["evidence"]] == ["c5.w0", "c5.v0"] and inputs["evidence_of"] == "the candidates checked"


def test_the_llm_chooser_is_told_what_each_input_field_means():
    """``--llm`` sends the chooser ``choice_inputs`` as data; the prompt names every field it holds, the evidence's look
    fields and their values, and the rule an all-along look is ruled out by, so a hosted model reads them as the
    offline chooser does."""
    from agents.choice import CHOOSE_OPTION, choice_inputs
    from agents.schema import Evidence, Moment

    look = Evidence(id="c0.w0", modality="visual", tool="face_mesh", start_s=0.0, end_s=2.0, person=0, ref="r",
                    detail=AWAY["detail"], look="away", look_target="camera")
    moment = Moment(start_s=0.0, end_s=2.0, emotion="neutral", affectnet8="neutral", confidence=0.5, rationale="r",
                    evidence=[look])
    inputs = choice_inputs("q", ["a", "b"], [moment], [], people=[0])
    words = {*inputs, *inputs["evidence"][0]} - {"id", "detail", "start_s", "end_s", "modality", "person"}
    prompt = CHOOSE_OPTION.prompt.replace("_", " ").lower()
    assert words == {"question", "options", "people", "moments", "evidence", "evidence_of", "look", "look_target"}
    assert all(w.replace("_", " ") in prompt for w in words)
    assert all(v in prompt for v in ("toward", "away", "camera", "person", "all along", "the other way"))


def test_an_option_about_more_than_the_look_reads_the_rest_too():
    thumbs = {"id": "c1.g0", "modality": "visual", "detail": "person 0 gives a thumbs up", "start_s": 1.0, "end_s": 2.0}
    scores, _ = option_scores(_inputs(["She looks at the camera and gives a thumbs up", "She looks away"], [thumbs]))
    assert scores[0] > 0.3 and scores[1] == NO_MATCH
    # a feeling too: a face's reading is matched for an option that names a feeling, not for one that names none
    sad = {"id": "c1.v0", "modality": "visual", "detail": "person 0's face at x=0.50, y=0.50 shows sadness (p=0.71)",
           "start_s": 0.0, "end_s": 4.0}
    _, sim = option_scores(_inputs(["She is sad and looks at the camera", "She looks at the camera"], [sad, AT_CAMERA]))
    assert sim[0, 0] > 0.2 and sim[1, 0] == NO_MATCH
    _, sim = option_scores(_inputs(["She smiles and looks at the camera", "She looks at the camera"], [sad, AT_CAMERA]))
    assert sim[0, 0] > NO_MATCH and sim[1, 0] == NO_MATCH


def test_with_no_moment_the_trace_says_it_reads_the_candidates_checked():
    choice = offline_choice(_inputs(["Yes, she looks away from the camera", "No, she keeps looking at the camera"],
                                    [AT_CAMERA], moments=()))
    assert choice.steps[0].modality == "n/a" and "No moment cites evidence" in choice.steps[0].text
    assert choice.option == 1


@pytest.mark.slow
def test_the_talking_head_is_answered_as_looking_at_the_camera(cache_root):
    """WDA_KatieHill_000.mp4 (watched: she speaks to the camera throughout). Before, "she looks away from the camera"
    was chosen, grounded by her looks at the camera (studies.gaze_choice)."""
    video = shared_media("WDA_KatieHill_000.mp4")
    options = ["Yes, she looks away from the camera", "No, she keeps looking at the camera"]
    answer = answer_query(video, "Does she look away from the camera at any point?", cache_dir=cache_root,
                          options=options)
    assert answer.choice.option == 1
    assert any("looks at the camera" in s.text and s.evidence_ids for s in answer.choice.steps)


@pytest.mark.slow
def test_the_performer_looking_to_the_side_rules_out_eye_contact_throughout(cache_root):
    """The sample's performer looks to the side at 4.3-6.3 s (watched; tests/test_gaze_words.py). Asked where he looks
    with no look in the question, the look away is still read, because an option asks about one."""
    options = ["He looks straight at the camera the whole time", "He looks away from the camera at times"]
    answer = answer_query(SAMPLE, "Where does the performer look while speaking?", cache_dir=cache_root,
                          options=options)
    assert answer.choice.option == 1
    ruling = next(s for s in answer.choice.steps if s.text.startswith("Option A says"))
    assert "but person 0 looks away from the camera" in ruling.text


@pytest.mark.slow
def test_options_do_not_change_the_moments_of_a_question_about_no_look(cache_root):
    """A look away is read for the options, but it supports only a question that asks for one: the moments with and
    without options are the same."""
    question = "When does someone point at someone?"
    plain = answer_query(SAMPLE, question, cache_dir=cache_root)
    chosen = answer_query(SAMPLE, question, cache_dir=cache_root,
                          options=["Someone avoids eye contact", "Someone points at the crowd"])
    assert [(m.start_s, m.end_s, m.emotion) for m in chosen.moments] == \
        [(m.start_s, m.end_s, m.emotion) for m in plain.moments]
