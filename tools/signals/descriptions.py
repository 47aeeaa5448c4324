"""The emotion descriptions a question in another language is read against: ``tools.signals.lexicon``'s English
``EMOTION_DESCRIPTIONS`` and their translations into Spanish, German, French and Chinese (``evals/RESULTS.md`` section
194)."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from tools.signals.lexicon import EMOTION_DESCRIPTIONS

#: ``EMOTION_DESCRIPTIONS`` translated phrase by phrase into Spanish, German, French and Chinese, the same
#: descriptors in the same order (data card ``tools/data/DESCRIPTIONS_TRANSLATED.md``); ``described_in``.
TRANSLATED_DESCRIPTIONS = Path(__file__).parents[1] / "data" / "emotion_descriptions_translated.json"


@functools.cache
def _translations() -> dict[str, dict[str, list[str]]]:
    """``TRANSLATED_DESCRIPTIONS`` as read: language -> AffectNet-8 label -> its translated phrases."""
    return json.loads(TRANSLATED_DESCRIPTIONS.read_text(encoding="utf-8"))


def translated_languages() -> frozenset[str]:
    """The languages (ISO 639-1) ``TRANSLATED_DESCRIPTIONS`` holds.

    Raises:
        FileNotFoundError: ``TRANSLATED_DESCRIPTIONS`` is missing.
    """
    return frozenset(_translations())


@functools.cache
def described_in(language: str) -> dict[str, list[str]]:
    """AffectNet-8 label -> its ``EMOTION_DESCRIPTIONS`` and, for a language of ``TRANSLATED_DESCRIPTIONS`` (ISO 639-1
    "es", "de", "fr", "zh"), their translations after them (5 + 5 phrases for neutral); another language's, the English
    alone. A question in that language is compared with phrases of its own language as well as with the English ones
    (``tools.perception.text_emotion.load_language_emotion``; ``evals/RESULTS.md`` section 194).

    Raises:
        FileNotFoundError: ``TRANSLATED_DESCRIPTIONS`` is missing.
    """
    translated = _translations().get(language, {})
    return {label: [*phrases, *translated.get(label, [])] for label, phrases in EMOTION_DESCRIPTIONS.items()}


#: Each AffectNet-8 label's mean similarity to the development translations, less the mean over labels
#: (``label_offsets``; written by ``python -m studies.translated_questions --offsets``; data card
#: ``tools/data/QUESTION_LABEL_OFFSETS.md``).
LABEL_OFFSETS = Path(__file__).parents[1] / "data" / "question_label_offsets.json"


def descriptions_digest() -> str:
    """SHA-256 (hex) of the phrases ``described_in`` gives each language of ``translated_languages``: what
    ``LABEL_OFFSETS`` was computed against, so a change to the descriptions shows as a stale offsets file."""
    phrases = {language: described_in(language) for language in sorted(translated_languages())}
    return hashlib.sha256(json.dumps(phrases, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


@functools.cache
def _offsets() -> dict:
    return json.loads(LABEL_OFFSETS.read_text(encoding="utf-8"))


def label_offsets(language: str) -> dict[str, float]:
    """AffectNet-8 label -> what a question in ``language`` ("es", "de", "fr", "zh") has subtracted from its cosine
    similarity to that label's phrases (``described_in``) before its emotions are chosen
    (``agents.intent.foreign_reading``); empty for another language, read against the English phrases alone.

    The offset is the label's mean similarity over the 1,120 development translations of questions (their labels
    unread), less the mean over the labels: a label whose phrases lie near questions of every kind (surprise, +0.05)
    no longer draws the questions that say no feeling strongly, as the hubness term of CSLS does for translation
    retrieval (Conneau, Lample, Ranzato, Denoyer and Jégou, 2018, "Word Translation Without Parallel Data", ICLR;
    there the mean over a label's nearest queries). One set for the four languages (``evals/RESULTS.md`` section 195).

    Raises:
        FileNotFoundError: ``LABEL_OFFSETS`` is missing.
    """
    data = _offsets()
    return dict(data["offsets"]) if language in data["languages"] else {}
