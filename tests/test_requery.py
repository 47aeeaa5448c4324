"""The verifier's loop back to the localizer, weak answers said plainly, and explicit abstention."""

from __future__ import annotations

import pytest

from agents.schema import Answer
from app.ask import main
from tests.conftest import SAMPLE

pytestmark = pytest.mark.slow


def test_unmet_support_requeries_twice_then_answers_with_weak_moments(cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does someone look disgusted?", "--min-support", "0.99", "--json", str(out),
                 "--cache-dir", str(cache_root), "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0
    answer = Answer.model_validate_json(out.read_text())
    assert answer.rounds == 3  # first search + 2 refined re-queries (--max-requery default)
    assert answer.candidates_rejected == answer.candidates_considered > 0
    assert answer.moments  # never empty when faces and speech were seen: the best ones, said to be weak
    assert answer.message.startswith("weak support: no candidate reached --min-support 0.99")
    assert "weak support" in printed
    nodes = [step.node for step in answer.trace]
    assert nodes == ["intent_interpreter", "person_grounder"] + ["candidate_localizer", "verifier", "query_refiner"] * 2 \
        + ["candidate_localizer", "verifier", "emotion_reasoner", "rationale_writer"]
    assert [s.elapsed_s for s in answer.trace] == sorted(s.elapsed_s for s in answer.trace)
    assert "re-query round 1" in answer.trace[4].decision and "re-query round 2" in answer.trace[7].decision


def test_max_requery_zero_stops_after_the_first_round_and_trace_streams(cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does someone look disgusted?", "--min-support", "0.99", "--max-requery", "0",
                 "--json", str(out), "--cache-dir", str(cache_root), "--quiet", "--trace"])
    assert code == 0
    assert Answer.model_validate_json(out.read_text()).rounds == 1
    err = capsys.readouterr().err
    for node in ("intent_interpreter", "candidate_localizer", "verifier", "emotion_reasoner", "rationale_writer"):
        assert f"{node}:" in err


def test_abstain_below_is_the_only_way_to_an_empty_answer(cache_root, tmp_path, capsys):
    out = tmp_path / "a.json"
    code = main([str(SAMPLE), "when does someone look disgusted?", "--min-support", "0.99", "--abstain-below", "0.99",
                 "--max-requery", "0", "--json", str(out), "--cache-dir", str(cache_root), "--quiet"])
    assert code == 0
    answer = Answer.model_validate_json(out.read_text())
    assert answer.moments == []
    assert answer.message.startswith("no moment returned: every candidate's support was below --abstain-below 0.99")
    assert "no moment returned" in capsys.readouterr().out


@pytest.mark.parametrize(("query", "clause"), [
    ("when does the audience enjoy the show?", ", none read as happiness (read as neutral)"),  # the README's demo
    ("when does someone look disgusted?", ", none read as disgust (read as happiness)"),
    ("when is the performer most worked up?", None),  # asks anger or disgust; a moment is read as anger
    ("when is nobody happy?", None),  # a denied feeling: the interpreter's targets are a guess at the rest
])
def test_the_message_says_when_no_moment_is_read_as_the_asked_feeling(cache_root, tmp_path, query, clause):
    """Pins of today's readings of the sample (the clause follows the moments: a reader that changes them changes it),
    each checked against the answer's own moments too."""
    out = tmp_path / "a.json"
    assert main([str(SAMPLE), query, "--json", str(out), "--cache-dir", str(cache_root), "--quiet"]) == 0
    answer = Answer.model_validate_json(out.read_text())
    read = {m.affectnet8 for m in answer.moments}
    assert answer.moments and answer.intent.target_emotions
    if clause is None:
        assert "none read as" not in answer.message
    else:
        assert answer.message.endswith(clause) and not read & set(answer.intent.target_emotions)


def test_unread_feelings_names_the_asked_and_the_shown_feelings_in_the_answers_label_set():
    from agents.change_schema import ChangeAsk
    from agents.schema import Intent, Moment
    from graphs.pipeline import unread_feelings

    def moment(label: str, shown: str | None = None) -> Moment:
        return Moment(start_s=1.0, end_s=3.0, emotion=shown or label, affectnet8=label, confidence=0.3, rationale="r",
                      evidence=[])

    anger = Intent(target_emotions=["anger", "disgust"], search_text="someone angry")
    q = "when is she angry or disgusted?"
    assert unread_feelings(anger, [moment("neutral"), moment("happiness"), moment("neutral")], q) == \
        ", none read as anger or disgust (read as neutral, happiness)"
    assert unread_feelings(anger, [moment("neutral"), moment("disgust")], q) == ""
    assert unread_feelings(anger, [], q) == ""
    assert unread_feelings(Intent(target_emotions=[], search_text="a point"), [moment("neutral")], "when?") == ""
    rest = Intent(target_emotions=["sadness"], search_text="nobody happy")  # a denial's targets: the guessed rest
    assert unread_feelings(rest, [moment("happiness"), moment("happiness")], "when is nobody happy?") == \
        ", but every moment found is read as happiness, which the question asks to be absent"
    assert unread_feelings(rest, [moment("neutral"), moment("happiness")], "when is nobody happy?") == ""
    change = anger.model_copy(update={"change": ChangeAsk(after=["anger"])})
    assert unread_feelings(change, [moment("neutral")], q) == ""  # a change's moments name the feelings around it
    open_question = anger.model_copy(update={"asks_feeling": True})
    assert unread_feelings(open_question, [moment("neutral")], "how does she feel?") == ""
    denied = Intent(target_emotions=["sadness"], search_text="nobody happy")
    assert unread_feelings(denied, [moment("neutral")], "when is nobody happy?") == ""
    # another label set: asked and shown in its labels (VQAU-13's Love is read from happiness)
    love = Intent(target_emotions=["happiness"], target_labels=["Love"], search_text="love")
    assert unread_feelings(love, [moment("neutral", "Love")], "when do they feel love?") == ""
    assert unread_feelings(love, [moment("neutral", "Neutral")], "when do they feel love?") == \
        ", none read as Love (read as Neutral)"


def test_a_question_that_names_a_part_of_the_video_is_answered_from_that_part(cache_root, tmp_path):
    def answer(query: str) -> Answer:
        out = tmp_path / "a.json"
        assert main([str(SAMPLE), query, "--json", str(out), "--cache-dir", str(cache_root), "--quiet"]) == 0
        return Answer.model_validate_json(out.read_text())

    whole, last = answer("when does the audience enjoy the show?"), answer(
        "when does the audience enjoy the show in the last 3 seconds?")
    assert whole.window is None and last.window == pytest.approx((last.duration_s - 3, last.duration_s), abs=1e-3)
    assert last.intent.target_emotions == whole.intent.target_emotions  # the feeling is read without the phrase
    def inside(a: Answer) -> bool:  # each moment within the part (a span the part cuts keeps at least 1 s)
        return all(a.window[0] - 1e-3 <= m.start_s and m.end_s <= a.window[1] + 1e-3 for m in a.moments)

    assert last.moments and inside(last)
    first = answer("when does the performer smile in the first 4 seconds?")
    assert first.window == (0.0, 4.0) and first.moments and inside(first)
    # a question about a gesture: every clip of the part competes, not only those the whole video's search ranks first
    point = answer("when does someone point in the last 6 seconds?")
    assert point.moments and inside(point)
    assert not point.intent.target_emotions
    outside = answer("when does the audience enjoy the show after 5 minutes?")
    assert outside.window is None and any("lies outside this 10.0 s video" in w for w in outside.warnings)
