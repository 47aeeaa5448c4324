"""Who speaks a span: the lips of its own shot, not the next one's; and the study that counts the index's speakers and
the answers' quoted ones."""

from __future__ import annotations

import pytest
from pytest import approx

from tests.conftest import SAMPLE
from tools.core.schema import Gaze
from tools.signals.social import MIN_LIP_WINDOW_S, SocialFrame, lip_window, speaker_of


def test_a_short_span_widens_to_three_seconds_on_the_side_away_from_a_cut():
    assert MIN_LIP_WINDOW_S == 3.0
    assert lip_window(5.0, 6.0) == approx((4.0, 7.0))  # no cuts: symmetric
    assert lip_window(5.0, 6.0, [4.8]) == approx((4.8, 7.8))  # a cut 0.2 s before: all of it after
    assert lip_window(5.0, 6.0, [6.4]) == approx((3.4, 6.4))  # a cut 0.4 s after: all of it before
    assert lip_window(5.0, 6.0, [4.8, 6.5]) == approx((4.8, 6.5))  # a shot of 1.7 s: the shot
    assert lip_window(5.0, 6.0, [1.0, 5.5, 9.0]) == approx((4.0, 7.0))  # a cut inside the span stays inside
    assert lip_window(5.0, 6.0, [5.0]) == approx((5.0, 8.0))  # the span starts at the cut
    assert lip_window(5.0, 6.0, [6.0]) == approx((3.0, 6.0))  # the span ends at the cut
    assert lip_window(5.0, 9.0, [4.9, 9.1]) == approx((5.0, 9.0))  # 3 s or longer: as it is


def _two_shots(fps: float) -> list[SocialFrame]:
    """Frames at ``fps`` over 12 s: person 1 alone in the shot 0-6 s, lips still until 4 s and moving a little after;
    person 2 alone in the shot from 6 s, talking with wide lip movements."""
    def frame(t: float) -> SocialFrame:
        if t < 6:
            gap = 0.1 if t < 4 else 0.15 + 0.1 * (int(t * fps) % 2)
            return SocialFrame(t=t, tracks=[1], gaze=[Gaze(mouth_open=gap)])
        return SocialFrame(t=t, tracks=[2], gaze=[Gaze(mouth_open=0.1 + 0.5 * (int(t * fps) % 2))])

    return [frame(i / fps) for i in range(int(12 * fps))]


def test_a_short_line_at_the_end_of_a_shot_is_read_from_its_own_shots_lips():
    """A 1-s line at 5-6 s, the end of person 1's shot. At the index's 1 fps, widened symmetrically (4-7 s) it holds
    two of her frames and one of the next shot's, too few to read (``lip_speaker`` needs three): nobody; kept to its
    shot (3-6 s) it holds three of hers, which name her. At 4 fps the symmetric window reaches 1 s into the next shot,
    whose talker's four frames move more than hers and name him; kept to its shot it names her."""
    one, four = _two_shots(1.0), _two_shots(4.0)
    assert speaker_of(one, 5.0, 6.0) is None
    assert speaker_of(one, 5.0, 6.0, cuts=[6.0]) == 1
    assert speaker_of(four, 5.0, 6.0) == 2
    assert speaker_of(four, 5.0, 6.0, cuts=[6.0]) == 1


def test_a_known_speaker_off_screen_keeps_the_words_the_lips_of_a_group_on_screen_do_not():
    """A cutaway: from 6 s a group is shown, person 2 laughing with wide lip movements beside person 3, while the line
    the index gave person 1 runs on. Person 1 off screen keeps it; in view, or unknown, the lips decide. One face
    shown alone (``_two_shots``: person 2 talking) whose lips move is the speaker, whoever the index named."""
    from tools.signals.social import MIN_GROUP, speaker_in_view

    assert MIN_GROUP == 2
    group = [fr if fr.t < 6 else SocialFrame(t=fr.t, tracks=[2, 3], gaze=[fr.gaze[0], Gaze(mouth_open=0.1)])
             for fr in _two_shots(4.0)]
    assert speaker_in_view(group, 7.0, 9.0, known=1) == 1
    assert speaker_in_view(group, 7.0, 9.0) == 2
    assert speaker_in_view(group, 7.0, 9.0, known=2) == 2
    assert speaker_in_view(_two_shots(4.0), 7.0, 9.0, known=1) == 2
    assert speaker_in_view([], 7.0, 9.0, known=1) is None  # no face seen: nothing said by the frames


def test_a_speaker_is_sure_by_lips_or_by_a_voice_heard_only_with_their_lips():
    """The sample's case: voice 0 heard with person 0's lips in two utterances, then linked to him by voice over the
    audience's shot (sure). Joined acted clips' case: voice 1 merged from persons 3 and 5 by the diarization, linked to
    person 3 by voice (not sure: the lips on screen may be the speaker's); no speaker, or no voice, names nobody."""
    from tools.signals.diarization import sure_speakers

    rows = [("s0", 0, 0, "lips"), ("s1", 0, 0, "lips"), ("s2", 0, 0, "voice"),
            ("s3", 1, 3, "lips"), ("s4", 1, 5, "lips"), ("s5", 1, 3, "voice"),
            ("s6", 2, None, None), ("s7", None, 4, "voice")]
    assert sure_speakers(rows) == {"s0": 0, "s1": 0, "s2": 0, "s3": 3, "s4": 5}


def test_the_speaker_study_counts_a_span_against_the_one_person_of_the_shot_holding_its_middle():
    """``studies.speakers.outcome``: shots 0-2 s (person 7), 2-5 s (person 8) and from 5 s (persons 7 and 9)."""
    from studies.speakers import outcome

    cuts, people = [2.0, 5.0], {0: {7}, 1: {8}, 2: {7, 9}}
    assert outcome(7, 0.5, 1.5, cuts, people) == "right"
    assert outcome(8, 0.5, 1.5, cuts, people) == "wrong"
    assert outcome(None, 0.5, 1.5, cuts, people) == "none"
    assert outcome(8, 1.0, 4.0, cuts, people) == "right"  # its middle, 2.5 s, is in the second shot
    assert outcome(7, 5.5, 6.0, cuts, people) == "unknown"  # two people in that shot
    assert outcome(7, 6.0, 7.0, [2.0], {0: {7}}) == "unknown"  # nobody tracked in that shot


@pytest.mark.slow
@pytest.mark.asr
def test_the_speaker_study_counts_each_answers_quoted_lines_once(cache_root):
    """``studies.speakers.count_quoted_speakers`` on the sample, whose one voice is the performer's (person 0, the
    one face of its first and third shots): every quoted line of two answers is his, counted once per answer."""
    from graphs.pipeline import answer_query
    from studies.speakers import count_quoted_speakers

    queries = ["when does he point at someone?", "when is the performer most worked up?"]
    quoted = sum(1 for q in queries for m in answer_query(SAMPLE, q, cache_dir=cache_root).moments
                 for e in m.evidence if e.modality == "verbal")
    assert quoted >= 4  # both answers quote the performer's lines
    questions = [(f"q{n}", str(SAMPLE), q) for n, q in enumerate(queries)]
    got = count_quoted_speakers(questions, cache_root, speaker=0)
    assert got["quotes"] == {"right": quoted, "wrong": 0, "none": 0, "unknown": 0}
    assert got["questions"] == 2 and got["videos"] == {"hamilton_short.mp4": got["quotes"]}
    other = count_quoted_speakers(questions, cache_root, speaker=4)  # a face of the audience
    assert other["quotes"]["wrong"] == quoted and {w["said"] for w in other["wrong"]} == {0}
