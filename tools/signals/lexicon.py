"""Plain-language descriptions of the AffectNet-8 expressions and of social/affective cues.

Used on both sides of text-side retrieval: clip descriptors are written with these phrases, and the
offline reasoner maps vague queries onto labels by sentence-embedding similarity to them. The
descriptions paraphrase the AffectNet annotation guidelines (Mollahosseini et al., 2017) and the
situations commonly used as elicitors in affective computing, plus everyday idioms for each feeling
("feeling down", "in a good mood", "put off"); they are not tuned to any test clip or test query. Neutral's last two
phrases (an unmoved face, an ordinary scene) were written from the development questions' misses and read once on
held-out questions (``python -m studies.descriptions``; ``evals/RESULTS.md`` section 101).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from pathlib import Path

from tools.signals.look_phrases import LOOK_IDIOMS, LOOK_PHRASES, WHERE_LOOK
from tools.signals.negation import PERSON_BREAK, expand_contractions
from tools.signals.word_forms import CLAUSE_MARKS, matched_phrases

EMOTION_DESCRIPTIONS: dict[str, list[str]] = {
    "neutral": ["calm, composed, neutral face", "speaking evenly, matter-of-fact, no strong feeling",
                "listening attentively with a relaxed face",
                "impassive, expressionless, unemotional, deadpan, indifferent",
                "ordinary, routine, nothing special, business as usual"],
    "happiness": ["smiling and laughing, happy, amused, enjoying it", "joy, delight, fun, pleased, cheerful",
                  "excited and enthusiastic, having a good time", "in a good mood, upbeat, cheerful spirits"],
    "sadness": ["sad, unhappy, downcast face, close to tears", "feeling left out, lonely, ignored, excluded",
                "disappointed, hurt, grieving, dejected", "feeling down, low, blue, miserable"],
    "surprise": ["surprised, astonished, mouth open, eyebrows raised", "shocked, startled, caught off guard",
                 "amazed by something unexpected"],
    "fear": ["afraid, scared, anxious, worried face", "nervous, tense, uneasy, frightened",
             "panicking, threatened, alarmed"],
    "disgust": ["disgusted, repulsed, grimacing, nose wrinkled", "revolted, grossed out, distaste",
                "finding something distasteful or offensive", "put off, turned off, sickened, nauseated by something"],
    "anger": ["angry, furious, frowning, shouting", "annoyed, irritated, frustrated, hostile",
              "defensive, arguing, confrontational, heated"],
    "contempt": ["contemptuous, scornful, smirking, eye-rolling", "dismissive, looking down on someone, sneering",
                 "disdainful, mocking, condescending"],
}

#: Cue name -> phrases. Cues name the kind of evidence a query asks for (Social Genome modalities).
CUE_DESCRIPTIONS: dict[str, list[str]] = {
    "speech": ["what someone says, mentions, talks about, tells", "words spoken, a remark, a statement"],
    "facial_expression": ["facial expression, face shows a feeling", "smile, frown, grimace, tears"],
    "gaze": ["who looks at whom, eye contact, looking away", "ignored, nobody looks at her, being watched"],
    "gesture": ["pointing, hand gestures, waving, arms crossed", "animated hand movements, gesturing"],
    "voice": ["tone of voice, loud, shouting, fast speech", "voice trembles, raised voice, whispering"],
    "group": ["the audience, the crowd, everyone, the group", "people together reacting"],
}

#: Cues at least this similar to a question's words (MiniLM cosine) are kinds of evidence it asks for (the best one
#: always is; ``agents.intent.offline_intent``), and a phrase whose ``facial_expression`` cue reaches it names a sign
#: of feeling on the face ("cry", "start laughing", "frown"; ``agents.change``).
MIN_CUE_SIM = 0.3

#: Words that name a person in a query; mapped to a role description.
PERSON_WORDS: dict[str, str] = {
    "she": "a woman", "her": "a woman", "woman": "a woman", "girl": "a girl", "he": "a man", "him": "a man",
    "his": "a man", "man": "a man", "boy": "a boy", "lady": "a woman", "guy": "a man", "gentleman": "a man",
    "kid": "a child", "child": "a child", "they": "a group", "audience": "the audience", "crowd": "the audience",
    "performer": "the performer", "speaker": "the speaker", "someone": "anyone", "men": "a man", "women": "a woman",
    "boys": "a boy", "girls": "a girl", "guys": "a man", "kids": "a child", "children": "a child", "somebody": "anyone",
    "everyone": "everyone", "people": "people", "i": "the camera wearer"}

#: Where on screen a question places a person ("the one on the left"): word -> the phrase's position (the
#: first word of each phrase names the place: left, right, middle).
POSITIONS = {"left": "on the left", "right": "on the right", "middle": "in the middle", "centre": "in the middle",
             "center": "in the middle"}
#: Nouns a position can follow ("the woman on the right"); others ("the middle of the show") place no person.
POSITIONED_NOUNS = ("one", "person", "woman", "man", "guy", "girl", "boy", "lady", "gentleman", "kid", "child")
_POSITIONED = re.compile(rf"\b({'|'.join(POSITIONED_NOUNS)})\s+(?:(?:who is|who's|sitting|standing|seated)\s+)?"
                         r"(?:on the (left|right)|in the (middle|centre|center))\b")

#: Age words before a person noun ("the older man", "a young woman") -> the age word of the phrase.
AGE_ADJECTIVES = {"older": "older", "old": "older", "elderly": "older", "young": "young", "younger": "young"}
_AGED = re.compile(rf"\b({'|'.join(AGE_ADJECTIVES)})\s+({'|'.join(POSITIONED_NOUNS)})\b")


#: A viewer's memory of a moment, VQAU-Bench's query form ("I kinda remember a firm handshake on a coastal walkway
#: right before the music swells - felt so light"): the "I" is the viewer, not a person on screen (``memory_form``).
_MEMORY_OPENING = re.compile(r"^i\s+(?:(?:kinda|kind\s+of|sort\s+of|vaguely|really|just)\s+)*(?:remember|recall)\b\s*")


def memory_form(text: str) -> bool:
    """Whether ``text`` is a viewer's memory of a moment ("I kinda remember ...", "I recall ...")."""
    return bool(_MEMORY_OPENING.match(" ".join(re.findall(r"[a-z'-]+", text.lower()))))


def person_phrases(text: str) -> list[str]:
    """The people ``text`` names, as the values of ``PERSON_WORDS`` ("she" -> "a woman"), with a position
    when one follows a person noun ("the woman on the right" -> "a woman on the right", "the one in the
    middle" -> "the person in the middle") and an age when an age word precedes one ("the older man" ->
    "an older man", "the young one" -> "a young person"); first mention order, no repeats. In a viewer's
    memory (``memory_form``) "I" is the viewer and names nobody on screen."""
    t = " ".join(re.findall(r"[a-z']+", text.lower()))
    if memory_form(text):
        t = re.sub(r"\bi\b", " ", t)
    phrases, placed = [], set()
    for m in _POSITIONED.finditer(t):
        role = PERSON_WORDS.get(m.group(1), "the person")
        phrases.append((m.start(), f"{role} {POSITIONS[m.group(2) or m.group(3)]}"))
        placed.add(m.start(1))
    for m in _AGED.finditer(t):
        if m.start(2) in placed:
            continue
        noun = PERSON_WORDS.get(m.group(2), "a person").split()[-1]
        age = AGE_ADJECTIVES[m.group(1)]
        phrases.append((m.start(), f"{'an' if age == 'older' else 'a'} {age} {'person' if noun == 'child' else noun}"))
        placed.add(m.start(2))
    for m in re.finditer(r"[a-z']+", t):
        if m.group() in PERSON_WORDS and m.start() not in placed:
            phrases.append((m.start(), PERSON_WORDS[m.group()]))
    return list(dict.fromkeys(p for _, p in sorted(phrases)))


#: A question's opening ("when does", "at what point is"): a wh-phrase and its auxiliary; ``emotion_phrase``.
_QUESTION_OPENING = re.compile(r"^(?:when|where|at what (?:point|moment|time)|in which (?:part|moment|scene)|how often)\s+"
                               r"(?:does|do|did|is|are|was|were|will|would|can|could|might)\b\s*")
#: Words that name a person without saying anything of them ("she", "the woman", "someone's"; not the object
#: and possessive "her", "him", "his", which belong to phrases such as "roll her eyes"); ``emotion_phrase``.
_NAMING_ONLY = sorted((w for w in PERSON_WORDS if w not in ("i", "her", "him", "his")), key=len, reverse=True)
_PERSON_REFERENCE = re.compile(
    r"\b(?:(?:(?:the|a|an|that|this)\s+)?(?:" + "|".join(_NAMING_ONLY) + r"|person|themselves|himself|herself)"
    r"|(?:the|that|this)\s+one)(?:'s)?(?:\s+(?:on the (?:left|right)|in the (?:middle|centre|center)))?\b")


def emotion_phrase(text: str, punctuation: bool = False, fallback: bool = True) -> str:
    """What a question says of the feeling it asks about: ``text`` lower-cased without its opening ("when
    does", "when is") and without the words that only name people ("she", "the woman", "someone's"); e.g.
    "When does she feel left out?" -> "feel left out"; negative contractions written out ("when isn't she happy?"
    -> "not happy"; ``tools.signals.negation.expand_contractions``). The AffectNet-8 descriptions of
    ``EMOTION_DESCRIPTIONS`` are such predicates, and the frame and person words otherwise weigh in the similarity
    (descriptions that mention "someone" gain on every question that does). ``punctuation=True`` keeps the marks
    that end a clause as words of their own and marks a removed person reference with
    ``tools.signals.negation.PERSON_BREAK`` ("nobody came , felt kind of lonely"; "nobody notice | is sad"), for
    ``tools.signals.negation.split_negated``. Returns ``text`` unchanged when nothing would remain (``fallback``), else
    "".
    """
    words = rf"[a-z'-]+|[{CLAUSE_MARKS}]" if punctuation else r"[a-z'-]+"
    t = " ".join(re.findall(words, expand_contractions(text.lower())))
    t = _PERSON_REFERENCE.sub(f" {PERSON_BREAK} " if punctuation else " ", _QUESTION_OPENING.sub("", t))
    t = " ".join(t.split())
    return t or (text if fallback else "")


#: Words that name a feeling, with the AffectNet-8 emotion each names: drawn from Open English WordNet (CC BY 4.0,
#: derived from Princeton WordNet) by ``studies.build_emotion_words`` after WordNet-Affect; ``named_emotions``.
EMOTION_WORDS = Path(__file__).parents[1] / "data" / "emotion_words.json"


@functools.cache
def emotion_words() -> dict[str, str]:
    """word or phrase (lower case) -> the AffectNet-8 emotion it names, from ``EMOTION_WORDS`` (1,234 words).

    Raises:
        FileNotFoundError: ``EMOTION_WORDS`` is missing (build it with ``python -m studies.build_emotion_words``).
    """
    return json.loads(EMOTION_WORDS.read_text(encoding="utf-8"))["words"]


def named_emotions(phrase: str) -> list[str]:
    """The AffectNet-8 emotions that words of ``phrase`` name in ``emotion_words`` ("seem livid" -> anger;
    "jumpy" -> fear; "hits the roof" -> anger), in order of first mention (``matched_phrases``)."""
    words = emotion_words()
    return list(dict.fromkeys(words[key] for key in matched_phrases(phrase, words)))


#: Words that frame a question rather than carry its content ("when *does* she *mention* X").
QUESTION_FRAME_WORDS = frozenset({"does", "did", "doing", "mention", "mentions", "mentioned", "say", "says", "said", "talk", "talks",
                                "talking", "tell", "tells", "speak", "speaks", "ask", "asks", "word", "words"})


#: Words and phrases that name an observable behaviour other than ``LOOK_PHRASES`` (a gesture, a gaze, a touch, a
#: posture, a movement; not bare "shake", "turn to": "shaking like a leaf", "knees turn to jelly"). A look is whole
#: ("avoid eye contact", "avert her eyes", "look straight at"), so "avoid" or "straight" is not left to read as a
#: feeling (section 173).
_OTHER_BEHAVIOURS = (
    "point", "points", "pointing", "pointed", "gesture", "gestures", "gesturing", "wave", "waves", "waving", "hand",
    "hands", "arm", "arms", "thumbs up", "thumbs down", "nod", "nods", "nodding", "shrug", "shrugs", "look at",
    "looks at", "looking at", "looked at", "stare", "stares", "staring", "glance", "glances", "eye contact", "gaze",
    "gazes", "look away", "looks away", "looking away", "looked away", "clap", "claps", "clapping", "clapped",
    "applaud", "applauds", "applauding", "applauded", "hug", "hugs", "hugging", "hugged", "cover", "covers", "covering",
    "covered", "lean", "leans", "leaning", "leaned", "turn away", "turns away", "turned away", "turn to him",
    "turn to her", "turn to the", "turns to him", "turns to her", "turns to the", "walk away", "walks away",
    "walked away", "stand up", "stands up", "stood up", "sit down", "sits down", "sat down", "shake hands",
    "shakes hands", "shook hands", "shake her head", "shakes her head", "shake his head", "shakes his head",
    "high five", "ignore", "ignores", "ignored", "ignoring", "avoid eye contact", "avoids eye contact",
    "avoiding eye contact", "avoided eye contact", "break eye contact", "breaks eye contact", "breaking eye contact",
    "broke eye contact", "look down at", "looks down at", "looking down at", "looked down at", "look straight at",
    "looks straight at", "looking straight at", "looked straight at", "look directly at", "looks directly at",
    "looking directly at", "looked directly at",
    *(f"{verb} {whose} {what}" for verb in ("avert", "averts", "averting", "averted")
      for whose in ("his", "her", "their", "my", "your", "the") for what in ("eyes", "gaze")))
BEHAVIOUR_PHRASES = (*_OTHER_BEHAVIOURS, *LOOK_PHRASES)  # every phrase of a behaviour; ``names_behaviour``
#: Words that ask about what is said ("when does she *mention* being new?", "who interrupts?"); ``names_speech``.
SPEECH_PHRASES = (
    "mention", "mentions", "mentioned", "mentioning", "say", "says", "said", "saying", "talk", "talks", "talked",
    "talking", "tell", "tells", "told", "telling", "ask", "asks", "asked", "asking", "speak", "speaks", "spoke",
    "speaking", "interrupt", "interrupts", "interrupted", "interrupting", "cut him off", "cut her off", "answer",
    "answers", "answered", "reply", "replies", "replied", "whisper", "whispers", "whispered")


def _names(text: str, phrases: tuple[str, ...]) -> bool:
    t = " ".join(re.findall(r"[a-z']+", text.lower()))
    return bool(phrases_pattern(phrases).search(t))


@functools.cache
def phrases_pattern(phrases: tuple[str, ...]) -> re.Pattern:
    """Any of ``phrases`` as whole words, in one pattern, the longest first ("look away" before "look"): one search per
    text, not one per phrase."""
    return re.compile(rf"\b(?:{'|'.join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))})\b")


def spaced_words(text: str, hyphens: bool = False) -> str:
    """``text`` in lower case, curly apostrophes straight, its words and its clause marks (``,.;:!?``) spaced, nothing
    else kept ("Doesn’t she look at him, ever?" -> "doesn't she look at him , ever ?"); with ``hyphens`` a hyphen
    belongs to a word."""
    word = r"[a-z'-]+" if hyphens else r"[a-z']+"
    return " ".join(re.findall(rf"{word}|[,.;:!?]", text.lower().replace("\u2019", "'")))


#: "point" as a noun of time, not the gesture: "at some point", "at no point", "from that point".
_POINT_IN_TIME = re.compile(r"\b(?:at|to|from|up to) (?:some|any|one|this|that|what|which|no|every|each) point\b")


def names_behaviour(text: str, looks: bool = True) -> bool:
    """Whether ``text`` names an observable behaviour: one of ``BEHAVIOUR_PHRASES`` (``looks=False``: not of
    ``LOOK_PHRASES``) as whole words ("at some point" is no pointing: ``_POINT_IN_TIME``; "look up to him" no look:
    ``tools.signals.look_phrases.LOOK_IDIOMS``), or, with ``looks``, a question of where someone looks ("where does
    she look?": ``tools.signals.look_phrases.WHERE_LOOK``)."""
    phrases = BEHAVIOUR_PHRASES if looks else _OTHER_BEHAVIOURS
    where = looks and WHERE_LOOK.search(spaced_words(text, hyphens=True))  # "where does she look?"
    return bool(where) or _names(LOOK_IDIOMS.sub(" ", _POINT_IN_TIME.sub(" ", text.lower())), phrases)


def names_speech(text: str) -> bool:
    """Whether ``text`` asks about what is said: one of ``SPEECH_PHRASES`` as whole words."""
    return _names(text, SPEECH_PHRASES)


@functools.cache
def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop words (``sklearn.feature_extraction.text.ENGLISH_STOP_WORDS``, 318 words, from the
    Glasgow Information Retrieval Group's list), read from the module that defines them without importing
    scikit-learn itself: its import takes about 2 s on 2 cores, longer than a warm question, for a word list. Falls back
    to the import when that module is not where scikit-learn keeps it."""
    spec = importlib.util.find_spec("sklearn")
    path = Path(spec.origin).parent / "feature_extraction" / "_stop_words.py" if spec and spec.origin else None
    if path is not None and path.is_file():
        words = importlib.util.spec_from_file_location("_sklearn_stop_words", path)
        module = importlib.util.module_from_spec(words)
        words.loader.exec_module(module)
        if isinstance(getattr(module, "ENGLISH_STOP_WORDS", None), frozenset):
            return module.ENGLISH_STOP_WORDS
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return ENGLISH_STOP_WORDS


def content_words(text: str) -> list[str]:
    """Lower-cased words of ``text`` minus English stop words (``english_stop_words``) and question-frame words."""
    stop = english_stop_words()
    words = re.findall(r"[a-z0-9']+", text.lower())
    return [w for w in words if w not in stop and w not in QUESTION_FRAME_WORDS and len(w) > 1]


def keyword_overlap(query: str, speech: str) -> float:
    """Share (0..1) of the query's content words that occur in ``speech``.

    Words match when equal or when they share a prefix of at least 4 letters ("working" ~ "work").
    Returns 0 when the query has no content words.
    """
    q, s = set(content_words(query)), set(content_words(speech))
    if not q:
        return 0.0

    def hit(w: str) -> bool:
        return w in s or any(len(x) >= 4 and len(w) >= 4 and (x.startswith(w[:4]) and w.startswith(x[:4])) for x in s)

    return sum(hit(w) for w in q) / len(q)


def speech_match(cosine: float, overlap: float) -> float:
    """Verbal match in [0, 1]: the embedding cosine, or the mean of cosine and keyword overlap if higher.

    MiniLM scores a question against a statement low even when the statement answers it (0.2 for
    "when does she mention being new?" vs "... my second week of new member orientation"); the
    overlap of content words recovers such literal mentions without letting overlap alone decide.
    """
    cosine = max(0.0, cosine)
    return max(cosine, (cosine + overlap) / 2)
