"""The emotion descriptions a question in another language is read against: ``tools.signals.lexicon``'s English
``EMOTION_DESCRIPTIONS`` and their translations into Spanish, German, French and Chinese (``evals/RESULTS.md`` section
194)."""

from __future__ import annotations

import functools
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
