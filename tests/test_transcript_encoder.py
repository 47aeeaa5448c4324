"""Searching what was said across languages: the multilingual sentence encoder of transcripts
(``tools.perception.text.load_transcript_encoder``), how ``auto`` picks it, and what the user is told.

The German sentences are EMO-DB's ten (Burkhardt et al., 2005; ``evals.data.sources.EMODB_TEXTS``), the
English questions their renderings written for ``studies.multilingual``.
"""

from __future__ import annotations

import numpy as np
import pytest

from evals.data.sources import EMODB_TEXTS
from graphs.settings import Settings
from memory.index_config import IndexConfig
from studies.multilingual import EMODB_EN
from tools.core.registry import UnknownBackendError
from tools.core.schema import Transcript, TranscriptSegment
from tools.perception.text import load_transcript_encoder, transcript_encoder_for, transcript_encoder_note

CODES = sorted(EMODB_EN)


def _found(encoder: str) -> int:
    enc = load_transcript_encoder(encoder)
    german, english = enc.encode([EMODB_TEXTS[c] for c in CODES]), enc.encode([EMODB_EN[c] for c in CODES])
    assert np.allclose(np.linalg.norm(german, axis=1), 1.0, atol=1e-4)
    return int(((english @ german.T).argmax(axis=1) == np.arange(len(CODES))).sum())


def test_english_questions_find_german_sentences_with_the_multilingual_encoder_only():
    assert _found("use-multilingual") == 10
    assert _found("minilm") <= 5  # all-MiniLM-L6-v2 finds 3 of the 10


def test_the_multilingual_encoder_embeds_empty_and_single_inputs():
    enc = load_transcript_encoder("use-multilingual")
    assert enc.encode([]).shape == (0, 512)
    one = enc.encode(["Der Lappen liegt auf dem Eisschrank."])
    assert one.shape == (1, 512) and one.dtype == np.float32


def test_an_unknown_transcript_encoder_is_refused_by_name():
    with pytest.raises(UnknownBackendError, match="use-multilingual"):
        load_transcript_encoder("labse")


@pytest.mark.parametrize(("settings", "encoder"), [
    ({}, "minilm"),                                                       # offline English-only Whisper
    ({"asr_model": "whisper-base"}, "auto"),                             # multilingual Whisper: by the language heard
    ({"asr_model": "whisper-base", "asr_task": "translate"}, "minilm"),   # English text
    ({"asr_model": "whisper-base", "language": "en"}, "minilm"),
    ({"asr_model": "/models/small.en/"}, "minilm"),
    ({"asr_model": "whisper-base", "transcript_encoder": "minilm"}, "minilm"),
    ({"transcript_encoder": "use-multilingual"}, "use-multilingual"),
])
def test_settings_leave_the_choice_to_the_language_heard_when_a_multilingual_whisper_transcribes(settings, encoder):
    assert Settings(**settings).index_config().transcript_encoder == encoder


def test_auto_keeps_english_speech_on_the_english_encoder():
    def transcript(language: str, translated: bool = False) -> Transcript:
        seg = TranscriptSegment(id="s0", start_s=0.0, end_s=1.0, text="Hallo",
                                translated_from="de" if translated else None)
        return Transcript(language=language, duration_s=1.0, model="whisper-base", segments=[seg])

    assert transcript_encoder_for("auto", transcript("de")) == "use-multilingual"
    assert transcript_encoder_for("auto", transcript("en")) == "minilm"
    assert transcript_encoder_for("auto", transcript("de", translated=True)) == "minilm"  # Whisper's English
    assert transcript_encoder_for("auto", Transcript(language="de", duration_s=1.0, model="m")) == "minilm"
    assert transcript_encoder_for("minilm", transcript("de")) == "minilm"


def test_the_default_encoder_keeps_the_cache_key_of_indexes_built_before_the_option():
    from memory.cache import config_key
    from memory.index_config import INDEX_FORMAT

    before = config_key({"format": INDEX_FORMAT, **IndexConfig().model_dump(exclude={"device", "transcript_encoder",
                                                                                      "caption_model", "caption_every_s",
                                                                                      "asr_task", "asr_beam_size"})})
    assert IndexConfig().key() == before
    assert IndexConfig(transcript_encoder="use-multilingual").key() != before


def test_the_user_is_told_when_english_questions_cannot_reach_the_words():
    assert transcript_encoder_note("en", "minilm") is None
    assert transcript_encoder_note("de", "use-multilingual") is None
    assert "--transcript-encoder use-multilingual" in transcript_encoder_note("de", "minilm")
    uncovered = transcript_encoder_note("hi", "use-multilingual")
    assert "(hi" not in uncovered and "hi, a language the multilingual text encoder was not trained on" in uncovered


def test_the_multilingual_words_head_reads_feelings_in_other_languages():
    from tools.perception.text_emotion import load_text_emotion

    multilingual, english = load_text_emotion(encoder="use-multilingual"), load_text_emotion()
    assert "words8_use_head" in multilingual.name and "words8_head" in english.name

    def top(scorer, text: str) -> str:
        reading = scorer.distribution(text)
        return max(reading, key=reading.__getitem__)

    said = {"Ich bin so glücklich, das ist wunderbar!": "happiness",
            "Mein Hund ist gestorben, ich bin so traurig.": "sadness",
            "¡Qué asco, esto huele horrible!": "disgust"}
    assert {text: top(multilingual, text) for text in said} == said
    assert top(english, "Ich bin so glücklich, das ist wunderbar!") != "happiness"  # MiniLM's head reads anger
