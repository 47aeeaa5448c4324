"""What a clip sounds like: the flatness formula's known values, real speech, and the index's clips."""

from __future__ import annotations

import numpy as np
import pytest

from studies.sound import speech_regions
from tests.conftest import shared_media
from tools.core.media import load_audio
from tools.perception.sound import SoundStats, band_flatness, describe_sound, sound_stats


def test_spectral_flatness_is_near_zero_for_a_tone_and_near_056_for_white_noise():
    t = np.arange(16_000) / 16_000
    tone = 0.3 * np.sin(2 * np.pi * 440 * t)
    noise = np.random.default_rng(0).normal(0, 0.1, 16_000)
    assert band_flatness(tone, 16_000).max() < 0.01
    assert band_flatness(noise, 16_000).mean() == pytest.approx(0.56, abs=0.05)  # exp(-Euler gamma) of a periodogram


def test_real_speech_reads_as_speech_and_digital_silence_as_quiet():
    audio = load_audio(shared_media("jfk.flac"))
    stats = sound_stats(audio, 16_000, 0.0, len(audio) / 16_000, speech_regions(audio))
    assert stats.kind == "speech" and stats.speech_share > 0.6 and -40 < stats.loudness_dbfs < -10
    quiet = sound_stats(np.zeros(32_000, np.float32), 16_000, 0.0, 2.0, [])
    assert quiet.kind == "quiet" and describe_sound(quiet) is None
    with pytest.raises(ValueError, match="empty span"):
        sound_stats(audio, 16_000, 3.0, 3.0, [])


def test_music_and_swells_get_descriptor_words():
    music = SoundStats(kind="music", loudness_dbfs=-18.0, change_db=8.5, speech_share=0.0, flatness=0.05)
    assert describe_sound(music) == "music playing, getting louder"
    crowd = music.model_copy(update={"kind": "noise", "change_db": -7.0, "flatness": 0.45})
    assert describe_sound(crowd) == "noise such as applause, a crowd or traffic, fading"
    assert describe_sound(music.model_copy(update={"kind": "speech"})) is None  # pauses, not a swell
