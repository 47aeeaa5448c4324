"""Emoji in a question read as words: each pictograph written out as its Unicode character name.

"when is she 😊?" names no feeling to a reader of words; written out, "when is she smiling face with smiling eyes?",
it does. The names are the Unicode Character Database's (Python's ``unicodedata``), which never change a character's
name once given; an emoji newer than the Python's Unicode version has no name there and is left as it is.
"""

from __future__ import annotations

import re
import unicodedata

#: Characters that only shape a neighbouring pictograph: variation selectors, the zero-width joiner, skin tones.
_SHAPERS = re.compile("[\ufe0e\ufe0f\u200d\U0001f3fb-\U0001f3ff]")


def spelled_out(text: str) -> str:
    """``text`` with every symbol character (Unicode category So: emoji, dingbats) replaced by its character name in
    lower case, spaced from its neighbours ("😢" -> " crying face "; "☹" -> " frowning face": the glyph-style word
    "white" of the older names is dropped), and the characters that only shape a pictograph removed. Text without
    such characters is returned unchanged."""
    shaped = _SHAPERS.sub("", text)
    names = [unicodedata.name(ch, "") if unicodedata.category(ch) == "So" else "" for ch in shaped]
    if not any(names):
        return text
    spelled = "".join(f" {name.lower().removeprefix('white ')} " if name else ch for ch, name in zip(shaped, names,
                                                                                                    strict=True))
    return re.sub(r"\s+([?!.,;:])", r"\1", re.sub(r"\s{2,}", " ", spelled)).strip()
