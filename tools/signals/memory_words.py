"""What a viewer's memory says the moment felt like: VQAU-Bench's query form ends with it ("I kinda remember a firm
handshake on a coastal walkway right before the music swells - felt so light"); ``stated_feeling``."""

from __future__ import annotations

import re

from tools.signals.lexicon import memory_form

#: The verb by which a viewer's memory states its feeling ("..., felt so warm", "- it felt kind of bleak"), a whole
#: word ("feel-good", "felt-tip" are none); ``stated_feeling``.
_FEEL_VERB = re.compile(r"(?<![\w-])(?:felt|feels?|feeling)(?![\w-])", re.IGNORECASE)
#: "feeling" after one of these is a noun ("the feeling in the room"), no verb; ``stated_feeling``.
_DETERMINER = re.compile(r"\b(?:the|a|an|that|this|my|his|her|its|our|your|their)\s+$", re.IGNORECASE)
#: Where a clause after the stated feeling begins: a clause mark before a conjunction ("felt so warm, and then
#: everyone left"), or a spaced dash; a bare comma does not ("felt not scared, just annoyed" states both).
_NEXT_CLAUSE = re.compile(r"\s*[,;:]\s*(?=(?:and|but|then|so|when|while|because|until|before|after|as)\b)"
                          r"|\s+[-\u2013\u2014]+\s+", re.IGNORECASE)


def stated_feeling(text: str) -> str | None:
    """What a viewer's memory (``memory_form``) says the moment felt like: ``text`` after its last feeling verb, up to
    a clause that follows it ("I kinda remember a hug at the airport that felt so warm" -> "so warm"), or None for a
    text that is no memory or states no feeling (nothing but marks after the verb). VQAU-Bench's queries end so: the
    scene is searched (the search text is the whole question) and the stated feeling names the emotion to find
    (``agents.emotion_scores.emotion_scores`` reads the two). The verb is left out because the sentence encoder puts
    "felt" itself near sadness ("felt so warm" reads sadness first, "so warm" happiness; ``evals/RESULTS.md`` section
    175)."""
    if not memory_form(text):
        return None
    found = [m for m in _FEEL_VERB.finditer(text)
             if not (m.group().lower() == "feeling" and _DETERMINER.search(text[:m.start()]))]
    stated = _NEXT_CLAUSE.split(text[found[-1].end():], maxsplit=1)[0].strip(" \t.!?") if found else ""
    return stated if re.search(r"[^\W_]", stated) else None
