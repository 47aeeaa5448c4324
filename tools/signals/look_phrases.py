"""Where or how someone looks, said in words: the phrases of a look that name no feeling, and the idioms of a look
verb that do. Read by ``tools.signals.lexicon.names_behaviour`` and, through it, by the question reader
(``agents.intent.chosen_emotions``): "when does she look down?" asks where she looks, "when does he look down on
her?" asks contempt (``evals/RESULTS.md`` sections 183 and 184).
"""

from __future__ import annotations

import re

_LOOKING = ("look", "looks", "looking", "looked")
_POSSESSIVES = ("his", "her", "their", "my", "your", "our")
#: Verbs of the eyes or head with their forms (base, third person, -ing, past): "lower her eyes", "crane his neck".
_EYE_VERBS = {
    "eyes": (("lower", "lowers", "lowering", "lowered"), ("raise", "raises", "raising", "raised"),
             ("drop", "drops", "dropping", "dropped"), ("lift", "lifts", "lifting", "lifted"),
             ("close", "closes", "closing", "closed"), ("shut", "shuts", "shutting"),
             ("open", "opens", "opening", "opened"), ("rub", "rubs", "rubbing", "rubbed"),
             ("keep", "keeps", "keeping", "kept"), ("fix", "fixes", "fixing", "fixed"),
             ("shift", "shifts", "shifting", "shifted"), ("cast", "casts", "casting")),
    "gaze": (("lower", "lowers", "lowering", "lowered"), ("raise", "raises", "raising", "raised"),
             ("drop", "drops", "dropping", "dropped"), ("lift", "lifts", "lifting", "lifted"),
             ("shift", "shifts", "shifting", "shifted"), ("fix", "fixes", "fixing", "fixed")),
    "head": (("turn", "turns", "turning", "turned"),),
    "heads": (("turn", "turns", "turning", "turned"),),
    "neck": (("crane", "cranes", "craning", "craned"),),
    "necks": (("crane", "cranes", "craning", "craned"),),
}
_PEERING = ("peer", "peering", "peered")  # not "peers": "her peers at school"

#: Where someone looks, said with a direction or a body part ("look over his shoulder", "look him in the eye", "lower
#: her eyes", "turn their heads", "peer through the glass"; also "look into" as "investigate"), or a verb of the eyes
#: alone ("blink", "squint", "peek"): a look unless the words say a feeling (``agents.intent``).
LOOK_PHRASES = (
    *(f"{verb} {way}" for verb in _LOOKING for way in (
        "up", "down", "around", "round", "back", "over", "out", "into", "toward", "towards", "ahead", "past",
        "through", "sideways", "both ways", "under", "behind", "across", "outside", "inside", "upward", "upwards",
        "downward", "downwards")),
    *(f"{verb} {who} in the eye" for verb in _LOOKING for who in ("him", "her", "them", "me", "us", "you")),
    *(f"{verb} {whose} {what}" for verb in ("meet", "meets", "meeting", "met") for whose in _POSSESSIVES
      for what in ("eyes", "gaze")),
    *(f"{verb} {whose} {part}" for part, verbs in _EYE_VERBS.items() for forms in verbs for verb in forms
      for whose in _POSSESSIVES),
    *(f"{verb} {way}" for verb in _PEERING for way in (
        "at", "into", "through", "under", "over", "out", "around", "down", "up", "in", "inside", "behind")),
    "blink", "blinks", "blinking", "blinked", "squint", "squints", "squinting", "squinted",
    "glanced", "glancing", "stared", "gazed", "gazing", "peek", "peeks", "peeking", "peeked")

#: Idioms of a look verb that name an attitude, not a look (Wiktionary): "look down on/upon" (contempt), "look down
#: one's nose at", "look up to" (admiration), "look back on" (remembering).
LOOK_IDIOMS = re.compile(r"\blook(?:s|ing|ed)? (?:down (?:on|upon)|up to|back (?:on|upon)|down "
                         r"(?:his|her|their|my|your|our|one's) nose)\b")

#: Words after "look" that make it a look, not a linking verb: a direction or preposition ("look at", "look up"), a
#: person or thing looked at ("look him in the eye", "look the other way"), "like" and "as" ("look like", "look as if").
_LOOK_AT = (
    "at", "away", "up", "down", "around", "round", "back", "over", "out", "into", "in", "on", "upon", "onto", "to",
    "toward", "towards", "ahead", "past", "through", "sideways", "under", "behind", "across", "like", "as", "for",
    "after", "forward", "forwards", "about", "from", "off", "along", "beyond", "straight", "directly", "right", "left",
    "here", "there", "where", "him", "her", "them", "me", "us", "you", "it", "his", "their", "my", "your", "our", "its",
    "the", "a", "an", "this", "that", "these", "those", "each", "every", "both", "one", "someone", "somebody",
    "everyone", "anyone", "nobody", "and", "or", "but", "then", "when", "while", "if", "before", "again", "closely",
    "carefully", "twice", "once", "outside", "inside", "outdoors", "indoors", "upward", "upwards", "downward",
    "downwards", "skyward", "skywards")
_LINKING_LOOK = re.compile(rf"(?<![a-z'-])look(?:s|ing|ed)? (?!(?:{'|'.join(_LOOK_AT)})\b)(?=[a-z])")


def without_linking_look(phrase: str) -> str:
    """``phrase`` (a question's feeling phrase, lower case) without "look" where it links a person to how they seem
    ("look proud" -> "proud", "looks so relieved" -> "so relieved"), not where it is a look ("look at him", "look
    up", "look him in the eye", "look like"): as a linking verb it says no feeling, but read by the sentence encoder it
    is nearest contempt's "looking down on someone", and its WordNet gloss is read beside the question."""
    return _LINKING_LOOK.sub("", phrase)


#: A question of where someone looks ("where does she look when the phone rings?", "when he enters, where is she
#: looking?", "where's he looking?"); one whose words also say a feeling ("where does she look upset?") keeps it.
WHERE_LOOK = re.compile(r"(?:^|[,.;:!?]\s*)(?:(?:so|and|but|then|ok|okay)\s+)?where(?:'s|\s+(?:do|does|did|is|are|was|"
                        r"were|will|would|can|could|has|have|had|might|should))\s+(?:[a-z'-]+\s+){1,4}?(?:been\s+)?"
                        r"look(?:s|ing|ed)?\b")
