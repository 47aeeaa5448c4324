"""A voice read against its speaker's own baseline (``tools.perception.voice_baseline``, ``voice8-speaker``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.conftest import REPO

RAVDESS = REPO / "tests" / "data" / "ravdess"


def test_departures_subtract_the_mean_of_each_voice_heard_often_enough():
    from tools.perception.voice_baseline import speaker_departures

    rows = [np.array([1.0, 2.0]), np.array([3.0, 6.0]), None, np.array([5.0, 1.0]), np.array([9.0, 9.0]),
            np.array([0.0, 0.0])]
    voices = [0, 0, 0, 0, 1, None]
    out = speaker_departures(rows, voices, min_clips=3)
    # voice 0: three rows read (the None row has nothing to read), mean (3, 3); voice 1: one row, too few
    assert np.allclose(out[0], [-2.0, -1.0]) and np.allclose(out[1], [0.0, 3.0]) and np.allclose(out[3], [2.0, -2.0])
    assert out[2] is None and out[4] is None and out[5] is None
    assert speaker_departures(rows, voices, min_clips=4) == [None] * 6
    with pytest.raises(ValueError, match="6 feature rows for 5 voices"):
        speaker_departures(rows, voices[:5])


def _stretches(gain: float) -> list[np.ndarray]:
    """Eight 1-s stretches of one RAVDESS test actor's speech: four of the neutral take, four of the angry take,
    evenly spread from the first to the last sample above a tenth of the take's peak, each scaled by ``gain``."""
    from tools.core.media import load_audio

    out = []
    for name in ("03-01-01-01-01-01-20.flac", "03-01-05-02-01-01-20.flac"):
        audio = load_audio(RAVDESS / name, 16_000)
        loud = np.flatnonzero(np.abs(audio) > 0.1 * np.abs(audio).max())
        out += [audio[a : a + 16_000] * gain for a in np.linspace(loud[0], loud[-1] - 16_000, 4).astype(int)]
    return out


def test_a_speakers_reading_does_not_change_with_the_recordings_gain_where_the_plain_heads_does():
    """Recorded 17 dB louder (the gap between the Javanese recordings and RAVDESS's studio, ``evals/RESULTS.md``
    section 132), the neutral take is no longer read as neutral by the plain head; read against the speaker's own
    baseline, the gain cancels (the features' levels shift alike in every clip): the neutral take reads neutral and
    the angry take anger at both gains."""
    from tools.perception.voice_emotion import load_voice_emotion

    model = load_voice_emotion("voice8-speaker")
    assert "speaker-baseline" in model.name
    readings = {}
    for gain in (1.0, 10 ** (17 / 20)):
        rows = [model.features(s) for s in _stretches(gain)]
        readings[gain] = (model.read_clips(rows, [0] * 8), model.read_clips(rows, [None] * 8))
    (own_quiet, plain_quiet), (own_loud, plain_loud) = readings.values()
    for a, b in zip(own_quiet, own_loud, strict=True):
        assert max(abs(a[k] - b[k]) for k in a) < 1e-3
    assert min(r["neutral"] for r in plain_quiet[:4]) > 0.9 and max(r["neutral"] for r in plain_loud[:4]) < 0.6
    assert all(max(r, key=r.get) == "neutral" for r in own_loud[:4])
    assert np.mean([r["anger"] for r in own_loud[4:]]) > 0.5 > max(r["anger"] for r in own_loud[:4])
    # fewer clips than a baseline needs, or no voice: the plain head, as voice8 reads them
    plain = load_voice_emotion("voice8")
    assert model.read_clips(rows[:3], [0] * 3) == [plain.distribution(s) for s in _stretches(10 ** (17 / 20))[:3]]
    assert model.read_clips([None], [0]) == [None]


def test_a_training_baseline_takes_the_neutral_clips_and_k_of_each_other_emotion():
    from studies.train_voice import baseline_reference, departure_rows
    from tools.core.schema import AFFECTNET8

    labels = ["neutral"] * 3 + ["anger"] * 4 + ["sadness"] * 4
    y = np.array([AFFECTNET8.index(k) for k in labels * 2])
    people = np.repeat(["a", "b"], len(labels))
    rng = np.random.default_rng(0)
    for k, size in ((0, 3), (1, 5), (2, 7), (9, 11)):  # more than a person has: all of them
        ref = baseline_reference(y, people, k, rng)
        assert all(ref[(people == p) & (y == 0)].all() and ref[people == p].sum() == size for p in "ab")
        for emotion in (AFFECTNET8.index("anger"), AFFECTNET8.index("sadness")):
            assert ref[(people == "a") & (y == emotion)].sum() == min(k, 4)
    assert baseline_reference(y, people, None, rng).all()
    x = np.arange(len(y), dtype=float)[:, None] * np.array([[1.0, 2.0]])
    rows, labels_out = departure_rows(x, y, people, (None, 0), 2, rng)
    assert rows.shape == (4 * len(y), 2) and (labels_out == np.tile(y, 4)).all()
    np.testing.assert_allclose(rows[: len(y)].reshape(2, -1, 2).sum(axis=1), 0.0, atol=1e-9)  # all clips: mean 0
    np.testing.assert_allclose(rows[2 * len(y) : 2 * len(y) + 3, 0], [-1.0, 0.0, 1.0])  # a's neutral mean is clip 1


def test_the_model_card_gives_the_speaker_heads_training_logs():
    import json

    card = (REPO / "tools" / "models" / "VOICE8.md").read_text()
    for name in ("voice8_speaker_head", "voice8_speaker_narrowband_head"):
        log = json.loads((REPO / "tools" / "models" / f"{name}.train.json").read_text())
        assert log["speaker_baseline"] and log["C"] == 0.01 and (REPO / "tools" / "models" / f"{name}.npz").is_file()
        figures = [f"{r['cv_accuracy']:.3f}" for r in log["cv"]] + [
            f"{log['test_accuracy'][f'k={k}']:.3f}" for k in (0, 1, 2, None)]
        assert all(f in card for f in figures), [f for f in figures if f not in card]


def test_the_index_reads_a_voice_heard_in_enough_clips_against_its_baseline_whatever_the_gain():
    """``indexing.clips.clip_voices`` over 23 s of one actor (the neutral and the angry take, three times), its speech
    regions where each take is loud: with the diarization hearing one voice throughout (one turn, or a turn per
    take), each of its 10 clips is read against that voice's baseline, so the same recording 17 dB louder reads the
    same, where voice8's readings change; without voice turns every clip is read as voice8 reads it."""
    from indexing.clips import clip_voices
    from tools.perception.voice_emotion import load_voice_emotion
    from tools.signals.diarization import VoiceTurn

    audio, transcript, windows, bounds = _one_actor()
    t = transcript.duration_s
    turns = [VoiceTurn(start_s=a, end_s=b, voice=0) for a, b in bounds]
    speaker, plain = load_voice_emotion("voice8-speaker"), load_voice_emotion("voice8")
    one_turn = [VoiceTurn(start_s=0.0, end_s=t, voice=0)]
    quiet = clip_voices(windows, speaker, audio, transcript, one_turn)
    loud = clip_voices(windows, speaker, audio * 10 ** (17 / 20), transcript, one_turn)
    assert len(windows) == 10 and all(quiet)
    assert clip_voices(windows, speaker, audio, transcript, turns) == quiet
    assert all(max(abs(a[k] - b[k]) for k in a) < 1e-3 for a, b in zip(quiet, loud, strict=True))
    as_voice8 = clip_voices(windows, plain, audio, transcript, one_turn)
    assert clip_voices(windows, speaker, audio, transcript) == as_voice8 != quiet
    loud8 = clip_voices(windows, plain, audio * 10 ** (17 / 20), transcript)
    assert max(max(abs(a[k] - b[k]) for k in a) for a, b in zip(as_voice8, loud8, strict=True)) > 0.2


def _one_actor():
    """23 s of one RAVDESS actor (the neutral and the angry take, three times) with its speech regions where each take
    is loud: (audio at 16 kHz, transcript of regions only, the index's 4-s clips every 2 s, each take's
    (start, end))."""
    from indexing.clips import clip_windows
    from tools.core.media import load_audio
    from tools.core.schema import Transcript

    takes = [load_audio(RAVDESS / n, 16_000) for n in ("03-01-01-01-01-01-20.flac", "03-01-05-02-01-01-20.flac")] * 3
    regions, bounds, t = [], [], 0.0
    for take in takes:
        loud = np.flatnonzero(np.abs(take) > 0.1 * np.abs(take).max()) / 16_000
        regions.append((round(t + loud[0], 3), round(t + loud[-1], 3)))
        bounds.append((t, t + len(take) / 16_000))
        t += len(take) / 16_000
    transcript = Transcript(duration_s=t, model="regions only", speech_regions=regions)
    return np.concatenate(takes), transcript, clip_windows(t, 4.0, 2.0), bounds


def test_a_person_the_diarization_split_into_voices_is_read_against_one_baseline_when_their_lips_move():
    """The same 23 s heard by the diarization as six voices, one a take, none in enough clips for a baseline: read
    as voice8 reads them; with the frames of the one face in view, whose lips move throughout, the clips are that
    person's and are read against one baseline, as when the diarization heard one voice."""
    from indexing.clips import clip_voices
    from tools.core.schema import Gaze
    from tools.perception.voice_emotion import load_voice_emotion
    from tools.signals.diarization import VoiceTurn
    from tools.signals.social import SocialFrame

    audio, transcript, windows, bounds = _one_actor()
    speaker, plain = load_voice_emotion("voice8-speaker"), load_voice_emotion("voice8")
    split = [VoiceTurn(start_s=a, end_s=b, voice=i) for i, (a, b) in enumerate(bounds)]
    talking = [SocialFrame(t=float(t), tracks=[0], gaze=[Gaze(mouth_open=0.1 + 0.2 * (t % 2))])
               for t in range(int(transcript.duration_s) + 1)]
    one_voice = clip_voices(windows, speaker, audio, transcript, [VoiceTurn(start_s=0.0, end_s=30.0, voice=0)])
    assert clip_voices(windows, speaker, audio, transcript, split) == clip_voices(windows, plain, audio, transcript)
    assert clip_voices(windows, speaker, audio, transcript, split, talking) == one_voice
    assert clip_voices(windows, speaker, audio, transcript, split) != one_voice


def test_each_clip_is_given_the_voice_heard_longest_in_its_speech_among_every_turn():
    """``clip_voices`` looks only at the turns near each window; the voices it names are those ``voice_of`` names
    over all the turns, for turns of two voices that start before, inside and after the windows."""
    from indexing.clips import clip_voices, clip_windows, voice_span
    from tools.core.schema import Transcript
    from tools.signals.diarization import VoiceTurn, voice_of

    class Recorder:
        def features(self, audio, sample_rate):
            return np.zeros(2)

        def read_clips(self, rows, voices):
            self.voices = list(voices)
            return [None] * len(rows)

    bounds = [0.0, 0.7, 3.1, 3.3, 6.9, 9.0, 9.5, 14.2, 17.0, 21.5, 24.0]
    turns = [VoiceTurn(start_s=a, end_s=b, voice=i % 2) for i, (a, b) in enumerate(itertools.pairwise(bounds))]
    transcript = Transcript(duration_s=24.0, model="regions only", speech_regions=[(0.5, 8.0), (8.6, 23.5)])
    windows, model = clip_windows(24.0, 4.0, 2.0), Recorder()
    clip_voices(windows, model, np.zeros(24 * 16_000, np.float32), transcript, turns)
    expected = [("voice", voice_of(turns, *voice_span(transcript, s, e))) for s, e in windows]
    assert model.voices == expected and {v for _, v in expected} == {0, 1}


def test_telephone_band_speech_is_read_against_its_baseline_by_the_telephone_band_speaker_head():
    from scipy.signal import resample_poly

    from tools.core.media import load_audio
    from tools.perception.voice_emotion import load_voice_emotion

    narrow = resample_poly(load_audio(RAVDESS / "03-01-05-02-01-01-20.flac", 8_000), 2, 1).astype(np.float32)
    reader = load_voice_emotion("voice8-speaker").for_recording(narrow)
    assert reader.name == ("voice8-head:voice8_narrowband_head.npz"
                           "+speaker-baseline:voice8_speaker_narrowband_head.npz")


def test_an_unknown_voice_reader_or_a_missing_bench_for_the_span_study_is_one_line_and_exit_2(tmp_path, capsys):
    from studies.span_readings import main

    assert main(["--bench", str(tmp_path / "none.jsonl"), "--cache-dir", str(tmp_path), "--voice-emotion", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --voice-emotion: ") and "voice8-speaker" in err and err.count("\n") == 1
    assert main(["--bench", str(tmp_path), "--cache-dir", str(tmp_path), "--voice-emotion", "voice8"]) == 2
    err = capsys.readouterr().err  # a folder, not the bench's file
    assert err == f"error: {tmp_path}: no such bench file\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1"}\n')
    assert main(["--bench", str(bad), "--cache-dir", str(tmp_path), "--voice-emotion", "voice8"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}") and err.count("\n") == 1


def test_a_clip_is_grouped_by_the_person_whose_lips_move_before_the_voice_the_diarization_heard():
    """``indexing.speakers.clip_speakers`` over 24 s at 1 fps, three people in view: person 3's lips move for 0-8 s, 5's
    for 12-16 s, 7's for 16-20 s. The diarization split person 3 into voices 0 and 3 and merged 5 and 7 into voice 1:
    by lips those are two speakers and one; a later stretch of voice 0 where no lips move is person 3's by the link
    the lips made, and so are one with nobody on screen and one where person 5 listens, lips still (a reverse shot),
    but not one where person 5's lips cannot be read (they might be speaking); a stretch of voice 1 is nobody's (its
    lips were two people's); voice 2, never heard with moving lips, stays a voice; no speech, no key. Without frames
    every span is the voice heard longest."""
    from indexing.speakers import clip_speakers
    from tools.core.schema import Gaze
    from tools.signals.diarization import VoiceTurn
    from tools.signals.social import SocialFrame

    moving = {3: (0, 8), 5: (12, 16), 7: (16, 20)}

    def gap(person, t):
        lo, hi = moving[person]
        return (0.3 if t % 2 else 0.1) if lo <= t <= hi else 0.1

    frames = [SocialFrame(t=float(t), tracks=[3, 5, 7], gaze=[Gaze(mouth_open=gap(p, t)) for p in (3, 5, 7)])
              for t in range(28)]
    frames += [SocialFrame(t=float(t), tracks=[5], gaze=[Gaze()]) for t in range(28, 32)]  # a profile: no lips
    frames += [SocialFrame(t=float(t), tracks=[], gaze=[]) for t in range(32, 36)]
    frames += [SocialFrame(t=float(t), tracks=[5], gaze=[Gaze(mouth_open=0.1)]) for t in range(36, 40)]
    bounds = [(0.0, 4.5, 0), (4.5, 8.0, 3), (8.0, 12.0, 2), (12.0, 20.0, 1), (20.0, 24.0, 0), (24.0, 28.0, 1),
              (28.0, 40.0, 0)]
    turns = [VoiceTurn(start_s=a, end_s=b, voice=v) for a, b, v in reversed(bounds)]
    spans = [(0.5, 4.0), (4.6, 7.9), (8.5, 11.5), (12.2, 15.8), (16.1, 19.9), (20.5, 23.5), (24.5, 27.5),
             (28.5, 31.5), (32.5, 35.5), (36.5, 39.5), None]
    assert clip_speakers(spans, turns, frames) == [
        ("person", 3), ("person", 3), ("voice", 2), ("person", 5), ("person", 7), ("person", 3), None, None,
        ("person", 3), ("person", 3), None]
    assert clip_speakers(spans, turns) == [("voice", 0), ("voice", 3), ("voice", 2), ("voice", 1), ("voice", 1),
                                           ("voice", 0), ("voice", 1), ("voice", 0), ("voice", 0), ("voice", 0), None]
    assert clip_speakers(spans) == [None] * 11
