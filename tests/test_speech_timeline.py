"""Each speaker's voice and words over the video: whose speech a stretch is, the speaker's own baseline, changes."""

from __future__ import annotations

import numpy as np
import pytest

from tools.core.schema import AFFECTNET8
from tools.signals.social import SpeechTurn
from tools.signals.speech_timeline import speaker_of_stretch, speech_timelines


def _reading(label: str, p: float) -> dict[str, float]:
    rest = (1.0 - p) / (len(AFFECTNET8) - 1)
    return {k: p if k == label else rest for k in AFFECTNET8}


def _turn(a: float, b: float, who: int | None) -> SpeechTurn:
    return SpeechTurn(start_s=a, end_s=b, speaker=who, record_id=f"u{a:g}")


def test_a_stretch_is_the_speakers_who_hold_most_of_its_speech_and_nobodys_when_shared():
    turns = [_turn(0, 3.5, 1), _turn(3.5, 4.0, 2), _turn(10, 12, 1), _turn(12, 14, 2), _turn(20, 24, None)]
    assert speaker_of_stretch(turns, 0, 4) == 1  # 3.5 of 4 s: a short interjection leaves it his
    assert speaker_of_stretch(turns, 10, 14) is None  # two voices, 2 s each: neither's
    assert speaker_of_stretch(turns, 20, 24) is None  # nobody knows who spoke
    assert speaker_of_stretch(turns, 5, 9) is None  # no speech at all


def test_a_voice_that_always_sounds_sad_is_not_sad_against_its_own_baseline_and_its_turn_to_anger_is_a_change():
    rng = np.random.default_rng(0)
    # person 3 speaks for 60 s in 2 s stretches: a sad-sounding voice for 40 s, then angry for 20 s
    spans, turns = [], [_turn(0, 60, 3)]
    for i in range(30):
        label = "sadness" if i < 20 else "anger"
        spans.append((2.0 * i, 2.0 * i + 2.0, _reading(label, float(np.clip(0.6 + rng.normal(0, 0.05), 0, 0.9)))))
    [tl] = speech_timelines(spans, turns, "vocal")
    assert (tl.person, tl.modality, tl.baseline_from) == (3, "vocal", "own")
    assert tl.times_s[0] == 1.0 and tl.times_s[-1] == 59.0  # each stretch at its middle
    assert max(tl.baseline, key=tl.baseline.get) == "sadness"
    assert abs(tl.departure("sadness")[5]) < 0.1  # her usual sound is not a sad moment
    assert tl.departure("anger")[25] > 0.3
    [c] = tl.changes
    assert c.t_s == pytest.approx(40.0) and (c.before, c.after) == ("sadness", "anger")


def test_words_of_an_unknown_speaker_make_no_timeline_and_a_brief_speaker_takes_the_videos_baseline():
    spans = [(0, 2, _reading("happiness", 0.7)), (2, 4, _reading("neutral", 0.7)), (4, 6, _reading("neutral", 0.7))]
    tls = speech_timelines(spans, [_turn(0, 2, 5), _turn(2, 6, None)], "verbal")
    assert [(t.person, t.modality, len(t.times_s), t.baseline_from) for t in tls] == [(5, "verbal", 1, "video")]
    assert max(tls[0].baseline, key=tls[0].baseline.get) == "neutral"  # the video's words are mostly neutral
    assert speech_timelines([], [_turn(0, 2, 5)], "vocal") == []


def test_untranscribed_speech_is_its_own_speakers_and_a_transcribed_stretch_keeps_the_utterances_rule():
    """Stretches with their own speakers (the clips' lips): where no utterance falls, as in speech the recogniser
    did not transcribe, the stretch is its own speaker's; where utterances fall, they decide, even a shared stretch."""
    spans = [(2.0 * i, 2.0 * i + 2.0, _reading("neutral", 0.6)) for i in range(8)]
    own = [4, 4, 4, None, 4, 7, 7, 7]
    turns = [_turn(8, 10, 9), _turn(12, 13, 9), _turn(13, 14, 2)]  # stretches 4 and 6 transcribed, 6 shared
    tls = speech_timelines(spans, turns, "vocal", own)
    assert [(t.person, t.times_s) for t in tls] == [(4, [1.0, 3.0, 5.0]), (7, [11.0, 15.0]), (9, [9.0])]
    assert speech_timelines(spans, turns, "vocal") == [t for t in tls if t.person == 9]
    with pytest.raises(ValueError):
        speech_timelines(spans, turns, "vocal", own[:5])


@pytest.mark.slow
def test_the_performers_voice_and_words_are_his_timelines_and_rows_in_the_report(tmp_path, cache_root):
    """The sample: the performer speaks for all 8.9 s of speech (lip activity names him). His voice is read over
    the index's clips and his words over each utterance; both are his timelines, and the report gives each a row."""
    from app.report import LABEL_COLOURS, timeline_rows
    from graphs.pipeline import ask, open_index
    from tests.conftest import SAMPLE

    index = open_index(SAMPLE, cache_dir=cache_root)
    speakers = {u.speaker for u in index.utterances}
    assert len(speakers) == 1 and None not in speakers
    [who] = speakers
    tls = {(t.person, t.modality): t for t in index.speech_timelines}
    assert set(tls) == {(who, "vocal"), (who, "verbal")}
    assert len(tls[who, "verbal"].times_s) == len(index.utterances)
    spoken = [(u.start_s, u.end_s) for u in index.utterances]
    voiced = [c for c in index.clips if c.voice_emotion]
    assert len(tls[who, "vocal"].times_s) == len(voiced) > 0
    # each clip's speaker (indexing.speakers.clip_speakers): his where he is in the shot; nobody's in the two shots of
    # other faces whose lips the index could not read (two profiles; the audience, two frames each), who might speak
    assert [c.speaker for c in voiced] == [who, None, who, None] and len(index.cuts) == 3
    for t in tls[who, "vocal"].times_s:  # every voice point sits on a clip with his speech in it
        assert any(a - 2.0 <= t <= b + 2.0 for a, b in spoken)
    rows = timeline_rows(ask(index, "when does he sound excited?"), index)
    labels = [r["label"] for r in rows]
    [evidence] = [r for r in rows if r["label"] == "evidence"]  # its marks took sadness's colour; they show no label
    assert evidence["marks"] and not any(c in m["style"] for m in evidence["marks"] for c in LABEL_COLOURS.values())
    assert labels.index(f"person {who} voice") == labels.index(f"person {who}") + 1
    assert labels.index(f"person {who} words") == labels.index(f"person {who}") + 2
