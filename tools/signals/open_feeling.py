"""Questions that ask which feeling someone shows without naming one: "how does she feel?", "what is he feeling while
he reads the letter?", "what mood is the host in?", "what's her mood?", "how does the crowd react to him?". The feeling
is what the answer must find, so the offline reader asks for none (``agents.intent.chosen_emotions``) and the label
comes from what was observed. The words of the clause that places the moment ("when he yells at her", "when the crowd
laughs") are not the feeling asked for; they reach the answer through the search text, and a gesture or words said
that they name through those readers' support (``placed_by_nothing``; ``evals/RESULTS.md`` section 145).
"""

from __future__ import annotations

import re

from tools.signals.lexicon import PERSON_WORDS, named_emotions, names_behaviour, names_speech, spaced_words

#: The auxiliary of a wh-question ("how *does* she feel", "what *is* he feeling").
_AUX = r"(?:does|do|did|is|are|was|were|will|would|can|could|might|should|has|have|had)"
#: What follows "look" in a look, not in how someone looks ("look at him", "look up", "look him in the eye", "look like
#: her mother", "look forward to"); "at the end", "after the fight", "to you" place the moment or the viewer.
_LOOKED_AT = (r"at(?!\s+(?:the\s+)?(?:end|start|beginning|moment|time|first|last)\b)|toward|towards|away|around|"
              r"round|up|down|back|over|out|into|for|through|past|ahead|across|behind|under|sideways|forward|like|"
              r"(?:him|her|them|me|us|you)\s+in\s+the\s+eyes?")
#: Verbs whose object, in "how ... ?", is the feeling itself ("how does she feel", "how does he react", "how does she
#: look"; not "how does she look at him" or "look up", which ask about a look).
_HOW_VERBS = (r"(?:feel|feels|felt|feeling|react|reacts|reacted|reacting|respond|responds|responded|responding|"
              r"seem|seems|seemed|come\s+across|take\s+it|taking\s+it|cope|coping|appear|appears|appeared|"
              rf"(?:look|looks|looked|looking)(?!\s+(?:{_LOOKED_AT})))")
#: Nouns for a feeling asked for by "what" or "which" ("what emotion does he show", "what kind of mood is she in").
_FEELING_NOUNS = (r"(?:emotion|emotions|feeling|feelings|mood|moods|reaction|reactions|response|responses|"
                  r"emotional\s+(?:state|reaction|reactions|response|responses)|state\s+of\s+mind)")
#: Nouns of a face that show a feeling ("what is her expression", "what face does he make"); unlike a feeling noun,
#: one is asked for only with a verb of a face or a place on it ("what expression does he use?" is about words).
_FACE_NOUNS = r"(?:(?:facial\s+)?expressions?|look\s+on\s+(?:her|his|their|its)\s+face)"
#: Verbs of a face one makes or wears ("what face does he make", "what expression is she pulling").
_FACE_VERBS = r"make|makes|making|pull|pulls|pulling|have|has|wear|wears|wearing"
#: The words a frame's subject may take: one to six, ended by the verb (a relative clause is cut by ``_subject``).
_SUBJECT = r"(?:[a-z'-]+\s+){1,6}?"
#: Whose feeling a possessive names ("what is *her* mood?", "what was *the man's* reaction?").
_OWNER = r"(?:her|his|their|its|the\s+[a-z-]+'s|[a-z-]+'s)"
#: The subject of a frame told rather than asked ("tell me how *she* feels", "i wonder how *the host* reacted"): a
#: pronoun or a determiner's noun, so "how happy she feels" is no such frame.
_TOLD = r"(?:she|he|they|we|you|i|the\s+[a-z'-]+|(?:his|her|their)\s+[a-z'-]+|[a-z-]+'s\s+[a-z'-]+)"
#: Words that may open a question before its frame ("so", "ok", "tell me", "i wonder").
_OPENING = r"(?:(?:so|and|ok|okay|hey|now|then|well|but|tell\s+me|i\s+wonder|i\s+want\s+to\s+know|show\s+me)\s+)*"
_OPEN = re.compile(
    rf"(?:^|[,.;:!?]\s+){_OPENING}(?:how\s+{_AUX}\s+(?P<how>{_SUBJECT}){_HOW_VERBS}"
    rf"|what\s+{_AUX}\s+(?P<what>{_SUBJECT})(?:feel|feels|felt|feeling)"
    rf"|(?:what|which)\s+(?:kind\s+of\s+|sort\s+of\s+)?{_FEELING_NOUNS}"
    rf"(?:\s+{_AUX}\s+(?P<noun>{_SUBJECT})(?:show|shows|showing|having|express|expresses|expressing|display|"
    rf"displays|convey|conveys|feel|feels|in|seem|seems|give|gives|have|has)\b"
    rf"|(?=\s+(?:{_AUX}|show|shows|appears?|on)\b|\s*$|\s*[,.;:!?]))"
    rf"|what\s+{_AUX}\s+(?P<owner>{_OWNER})\s+(?:{_FEELING_NOUNS}|{_FACE_NOUNS})"
    rf"|(?:what|which)\s+(?:kind\s+of\s+|sort\s+of\s+)?(?:faces?|{_FACE_NOUNS})\s+{_AUX}\s+(?P<facing>{_SUBJECT})"
    rf"(?:show|shows|showing|express|expresses|display|displays|convey|conveys|{_FACE_VERBS})\b"
    rf"|(?:what|which)\s+{_FACE_NOUNS}(?=\s+(?:is\s+|was\s+)?(?:on|shows?|showed|appears?|appeared)\b)"
    rf"|what\s+{_AUX}\s+the\s+(?:look|expression)\s+on\s+(?P<faced>{_OWNER})\s+face"
    rf"|what\s+{_AUX}\s+(?:written\s+on\s+)?(?P<face>{_OWNER})\s+faces?"
    rf"(?:\s+(?:show|shows|showing|say|says|tell|tells|express|expresses|convey|conveys|reveal|reveals))?"
    rf"|how\s+would\s+you\s+describe\s+(?P<described>{_OWNER})\s+(?:{_FEELING_NOUNS}|{_FACE_NOUNS})"
    rf"|how\s+{_AUX}\s+(?P<changed>{_OWNER})\s+(?:face|expression|mood|feelings?)\s+(?:change|changes|changed|"
    rf"changing|shift|shifts|shifted)"
    rf"|what\s+(?:happens|happened)\s+to\s+(?P<happened>{_OWNER})\s+(?:face|expression|mood)"
    rf"|how\s+(?P<told>{_TOLD}\s+)(?:feels|felt|is\s+feeling|was\s+feeling|reacts|reacted))\b")
#: Words that open the clause placing the moment: what follows them is where to look, not the feeling asked for.
_PLACING = re.compile(r"\b(?:when|whenever|while|as|after|before|during|at|in|on|about|if|once|towards?|with|"
                      r"throughout|since|until|by|to)\b")
#: A manner the frame's verb is done in names its feeling ("how does he react *with anger*?", "*in shock*").
_MANNER = re.compile(r"^(?:with|in)\s+(?:(?:a|an|the|some|great|such)\s+)?([a-z'-]+)")
#: The pronoun a frame's subject is as the subject of a placing clause ("her mood ... when *she* is scared", "how does
#: the boy look when *he* is scared?", "the girls ... when *they*"); a person the lexicon does not know ("the bride", a
#: name) only by the same words, since "how does Anna feel when he gets angry?" asks Anna's feeling, not his.
_PRONOUN_OF = {"her": ("she",), "his": ("he",), "their": ("they",), "its": ("it",), "a woman": ("she",),
               "a girl": ("she",), "a man": ("he",), "a boy": ("he",), "a group": ("they",), "the audience": ("they",),
               "the camera wearer": ("i",)}
_RELATIVE = re.compile(r"\s+(?:who|that|which|whom|whose)\s+.*$")
#: Contracted "is"/"are" after how and what ("how's she feeling?", "what're they feeling?").
_CONTRACTED = ((re.compile(r"\b(how|what)'s\b"), r"\1 is"), (re.compile(r"\b(how|what)'re\b"), r"\1 are"))


def _text(query: str) -> str:
    """``query`` in lower case, its words and its clause marks spaced (``spaced_words``), "how's" as "how is"."""
    text = spaced_words(query, hyphens=True)
    for pattern, full in _CONTRACTED:
        text = pattern.sub(full, text)
    return text


def _names_its_feeling(rest: str, subject: str) -> bool:
    """Whether the words after a frame name the feeling asked about: before the clause placing the moment ("how does
    she feel, happy or sad?" is the next case), in a manner ("with anger"), in a choice or yes/no tail after a comma
    ("..., is he angry?"), or in a placing clause said of the frame's own subject ("when she was scared")."""
    words = " ".join(re.findall(r"[a-z'-]+", rest))
    placing = _PLACING.search(words)
    head = words[: placing.start()] if placing else words
    clause = words[placing.end():].strip() if placing else ""
    manner = _MANNER.match(words[placing.start():]) if placing else None
    tail = rest.rsplit(",", 1)[1] if "," in rest else ""
    own = _said_of(subject, clause) and named_emotions(" ".join(clause.split()[:5]))
    return bool(named_emotions(head) or (manner and named_emotions(manner.group(1))) or named_emotions(tail) or own)


def _said_of(subject: str, clause: str) -> bool:
    """Whether a placing ``clause`` is said of the frame's ``subject``: it opens with the subject's words or with the
    pronoun that stands for them ("she's" as "she")."""
    if not subject or not clause:
        return False
    first = re.sub(r"'(?:s|re|m)$", "", clause.split()[0])
    head = subject.split()[-1]
    plural = head in PERSON_WORDS and (head.endswith("s") or head in ("men", "women", "children", "people"))
    pronouns = _PRONOUN_OF.get(subject) or (("they",) if plural else _PRONOUN_OF.get(PERSON_WORDS.get(head, ""), ()))
    return clause.startswith(subject + " ") or first in (subject, *pronouns)


def _open_frame(query: str) -> tuple[re.Match, str] | None:
    """The frame of a question asking which feeling someone shows, and its subject's words (``feeling_subject``)."""
    text = _text(query)
    m = _OPEN.search(text)
    if m is None:
        return None
    subject = re.sub(r"'s$", "", _RELATIVE.sub("", next((g.strip() for g in m.groups() if g), "")))
    return None if _names_its_feeling(text[m.end():], subject) else (m, subject)


def asks_open_feeling(query: str) -> bool:
    """Whether ``query`` asks which feeling someone shows and names none: "how does she feel when he yells at her?",
    "what emotion does he show when he points?", "when he yells, how does she feel?", "what's her mood?" (True); "how
    does she feel, happy or sad?", "what does he feel disgusted by?", "how does he react with anger?", "how did she
    feel when she was scared?", "when is she happy?" (False: it names the feeling, or has no such frame). English
    questions only; a change of feeling ("what does he feel next?") is read before this (``agents.change``)."""
    return _open_frame(query) is not None


def feeling_subject(query: str) -> str:
    """Whose feeling an open question (``asks_open_feeling``) asks about: the words of its frame's subject ("how does
    the crowd react to him?" -> "the crowd", "what's her mood?" -> "her", "how does the man who yells at her feel?"
    -> "the man"), or "" when the frame has none ("which feeling shows on her face?") or the question is no such
    question. The other people it names ("him", "he" of the placing clause) say where to look."""
    found = _open_frame(query)
    return found[1] if found else ""


#: Speaking said of someone without what is said ("while he speaks", "as she is talking"; not "when she talks about
#: her family", "when he speaks to her"): it places no words the transcript could match.
_BARE_SPEECH = re.compile(r"\b(?:while|when|whenever|as)\s+(?:[a-z'-]+\s+){1,3}?(?:is\s+|are\s+|was\s+|were\s+)?"
                          r"(?:speak|speaks|speaking|spoke|talk|talks|talking|talked)\b"
                          r"(?!\s+(?:about|of|on|to|with|that|in)\b)")


def placed_by_nothing(query: str) -> bool:
    """Whether an open question (``asks_open_feeling``) names no gesture, look or speech to place its moment by
    (``tools.signals.lexicon.names_behaviour``, ``names_speech``; speaking without what is said, "while he speaks",
    places nothing): "how is the audience feeling?" and "how does he feel while he speaks?" (True), "what emotion
    does he show when he points?" and "what does she feel when she talks about her family?" (False). Such a moment
    is where the feeling shows, from its onset to its offset; otherwise the gesture or the words set it. Other words
    of a placing clause ("when he yells at her") place it only through the search that proposes the candidates."""
    text = " ".join(re.findall(r"[a-z'-]+", query.lower()))
    return not names_behaviour(query) and not names_speech(_BARE_SPEECH.sub(" ", text))
