"""The language a question is written in, so that one in another language is read by the multilingual encoder.

A question that holds one of ``ENGLISH_MARKERS`` (words of English questions that are no words of the other languages
the multilingual Universal Sentence Encoder reads: "when", "does", "she", ...) is English without further reading:
all 583 questions of the project's English question files hold one (the unread seventh held-out file left out; of
the 70 short keyword queries, 5), and none of the 256 translated development questions does
(``evals/data/questions_translated.jsonl``). Any other question is identified by py3langid (a maintained fork of Lui
& Baldwin's langid.py, 2012: a naive Bayes classifier over byte n-grams, its model inside the wheel), restricted to
``tools.perception.text.USE_LANGUAGES``: it named the right language for all 256 translations, each with a
probability of 0.83 or more. Short English queries without a marker ("sad moments", "awkward silence", "sobbing":
``evals/data/questions_keywords.jsonl``) it often calls another language, but with 0.61 at most, so a question is
taken to be in another language at ``MIN_LANGUAGE_P`` or more, or below it when it holds a word of that language's
``QUESTION_FRAMES`` ("Quand est-elle triste ?": French at 0.66; no frame word is an English word), and is read as
English otherwise (``python -m studies.translated_questions --dev``; ``evals/RESULTS.md`` sections 105 and 194). Its
model takes about 0.7 s to load, so it is loaded only for a question without a marker, once per process.
"""

from __future__ import annotations

import functools
import itertools
import re

from tools.perception.text import USE_LANGUAGES
from tools.signals.emoji import spelled_out

#: Words of English questions that are not words of the other ``USE_LANGUAGES`` written in Latin script (so "is",
#: Dutch too, "was", German too, and "he", Spanish too, are not among them); the memory form's "felt", "remember" and
#: "recall" too ("I kinda remember ..., felt so warm").
ENGLISH_MARKERS = frozenset({
    "when", "does", "did", "she", "they", "someone", "somebody", "anyone", "anybody", "everyone", "the", "what", "how",
    "who", "which", "where", "why", "him", "his", "their", "are", "were", "people", "felt", "remember", "recall",
})
#: py3langid's probability (normalised over ``USE_LANGUAGES``) from which a question is taken to be in the language it
#: names: midway between its most confident wrong call on the English keyword queries (0.61) and its least confident
#: call on the translated development questions (0.83).
MIN_LANGUAGE_P = 0.72
_WORD = re.compile(r"[a-z]+")


#: The words that only frame a question in each language the multilingual encoder reads: "when" and "someone" (and
#: their forms), as the English reader drops "when does" and "someone" (``tools.signals.lexicon.emotion_phrase``);
#: ``question_core``. Measured in Spanish, German, French and Chinese (``evals/RESULTS.md`` section 107); the others
#: are the same two words, unmeasured.
QUESTION_FRAMES: dict[str, tuple[str, ...]] = {
    "es": ("cuándo", "cuando", "alguien"), "de": ("wann", "jemand", "jemanden", "jemandem"),
    "fr": ("quand", "quelqu'un", "quelqu’un"), "it": ("quando", "qualcuno"), "pt": ("quando", "alguém"),
    "nl": ("wanneer", "iemand"), "pl": ("kiedy", "ktoś", "kogoś", "komuś"),
    "ru": ("когда", "кто-то", "кого-то", "кому-то"),
    "tr": ("ne zaman", "birisi", "biri"), "ar": ("متى", "شخص ما", "أحد"), "ja": ("いつ", "誰か"), "ko": ("언제", "누군가"),
    "zh": ("什么时候", "何时", "有人"), "th": ("เมื่อไหร่", "เมื่อไร", "ใคร"),
}
#: Languages written without spaces between words (or with particles joined to them): their frame words are removed
#: wherever they stand.
_UNSPACED = frozenset({"ja", "ko", "zh", "th"})
_MARKS = re.compile("[¿?？؟]")


def _word_pattern(word: str, language: str) -> str:
    """A regular expression of ``word`` as a whole word, or anywhere in a language of ``_UNSPACED``."""
    return re.escape(word) if language in _UNSPACED else rf"(?<!\w){re.escape(word)}(?!\w)"


def question_core(text: str, language: str) -> str:
    """``text`` without its question marks and the words of ``QUESTION_FRAMES[language]`` (whole words, any case;
    anywhere in a language of ``_UNSPACED``), spaces collapsed: "¿cuándo se siente alguien rechazado?" -> "se siente
    rechazado". ``text`` itself when nothing would remain or the language has no frame words listed."""
    words = QUESTION_FRAMES.get(language, ())
    core = text
    for word in sorted(words, key=len, reverse=True):
        core = re.sub(_word_pattern(word, language), " ", core, flags=re.IGNORECASE)
    core = " ".join(_MARKS.sub(" ", core).split()) if words else text
    return core or text


#: Words that name people in a question of the four measured languages, with the person each names as
#: ``tools.signals.lexicon.PERSON_WORDS`` does ("ella" -> "a woman"; "alguien" -> "anyone"); ``foreign_people``. German
#: "sie" (she, they and the polite you) and Spanish "el" without its accent (the article) name nobody.
FOREIGN_PERSON_WORDS: dict[str, dict[str, str]] = {
    "es": {"ella": "a woman", "él": "a man", "mujer": "a woman", "hombre": "a man", "chica": "a girl", "chico": "a boy",
           "alguien": "anyone", "ellos": "a group", "ellas": "a group", "público": "the audience", "todos": "everyone",
           "orador": "the speaker"},
    "de": {"er": "a man", "ihn": "a man", "ihm": "a man", "frau": "a woman", "mann": "a man", "mädchen": "a girl",
           "junge": "a boy", "jemand": "anyone", "jemanden": "anyone", "jemandem": "anyone", "publikum": "the audience",
           "alle": "everyone", "sprecher": "the speaker"},
    "fr": {"elle": "a woman", "il": "a man", "elles": "a group", "ils": "a group", "femme": "a woman", "homme": "a man",
           "fille": "a girl", "garçon": "a boy",
           "quelqu'un": "anyone", "quelqu\u2019un": "anyone", "public": "the audience", "tout le monde": "everyone",
           "orateur": "the speaker"},
    "zh": {"她们": "a group", "他们": "a group", "她": "a woman", "他": "a man", "女人": "a woman", "男人": "a man",
           "女孩": "a girl", "男孩": "a boy", "有人": "anyone", "观众": "the audience", "大家": "everyone",
           "讲话的人": "the speaker"},
}


_WORDS = re.compile(r"[^\W\d_][\w'\u2019-]*")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'\u2019-]*")
#: French elided articles and pronouns ("l'homme", "qu'il") and the subject pronoun an inverted question joins to its
#: verb ("ouvre-t-il"): cut off a word before it is read.
_FR_CLITICS = re.compile(r"\b(?:[cdjlmnst]|qu)['\u2019]|-(?:t-)?(?:il|elle|on|ils|elles)\b")


def question_words(text: str, language: str) -> list[str]:
    """The words of ``text``'s core (``question_core``) that may say a feeling, sorted, no repeats: its lower-cased
    words of three letters or more but those naming people (``FOREIGN_PERSON_WORDS``) and frame words: "¿cuándo se
    enfada ella?" -> ["enfada"]; French without its elided articles and inverted pronouns ("quand l'homme sourit-il ?"
    -> ["sourit"]). In Chinese, where words are not delimited, the words jieba's dictionary cuts it into (rjieba, the
    Python binding of jieba-rs) and each two next to each other joined (a word naming a person between them parts
    them), of two characters or more, and any word in Latin letters of three or more: "她什么时候想吐？" -> ["想吐"]
    ("想", "吐"); "他什么时候戴着眼镜？" -> ["戴着", "戴着眼镜", "眼镜"], never "着眼", which crosses a word's edge.
    Other languages are cut at spaces and punctuation (unmeasured). ``agents.intent.foreign_reading`` reads each alone
    when the whole question names no feeling."""
    people, frames = FOREIGN_PERSON_WORDS.get(language, {}), set(QUESTION_FRAMES.get(language, ()))
    core = question_core(text, language).lower()
    for phrase in sorted((p for p in people if " " in p), key=len, reverse=True):
        core = re.sub(_word_pattern(phrase, language), " ", core)
    if language == "fr":
        core = _FR_CLITICS.sub(" ", core)
    if language == "zh":
        import rjieba

        runs = [list(run) for text_run in re.findall(r"[^\W\d_A-Za-z]+", core)
                for named, run in itertools.groupby(rjieba.cut(text_run, hmm=True), key=lambda w: w in people)
                if not named]  # a person's word ends a run: "她对他翻白眼" -> "对", "翻白眼"
        pairs = [a + b for run in runs for a, b in itertools.pairwise(run)]
        words = {w for w in [*(w for run in runs for w in run), *pairs] if len(w) > 1}
        words |= {w for w in _LATIN.findall(core) if len(w) > 2}
    else:
        words = {w for w in _WORDS.findall(core) if len(w) > 2}
    return sorted(words - set(people) - frames)


#: French: the verb and pronoun of an inverted question ("quand *se fâche-t-il* ?"), and what may stand between
#: "quand" and the verb when the pronoun is its subject: object pronouns, not a noun ("quand *quelqu'un* semble-t-il
#: ravi ?" repeats the noun in "il", which then names nobody more).
_FR_INVERSION = re.compile(r"^\W*quand\s+((?:(?:se|s'|me|m'|te|t'|nous|vous|ne|n'|y|en)\s*)*)[\w']+-(?:t-)?"
                           r"(il|elle|ils|elles)\b")
#: German: "wann" + verb + "sie", where the verb's ending tells "she" (-t, ist, hat, wird) from "they" (-en, sind).
_DE_SIE = re.compile(r"^\W*wann\s+(\w+)\s+sie\b")


def _pronoun_subject(lowered: str, language: str) -> list[tuple[int, str]]:
    """(position, person) of the subject pronoun a French inversion or a German "wann ... sie" names."""
    if language == "fr":
        m = _FR_INVERSION.match(lowered)
        if m:
            return [(m.start(2), FOREIGN_PERSON_WORDS["fr"][m.group(2)])]
    if language == "de":
        m = _DE_SIE.match(lowered)
        if m and (m.group(1).endswith("t") or m.group(1) in ("ist", "hat", "wird")):
            return [(m.start(1), "a woman")]
        if m and (m.group(1).endswith("en") or m.group(1) == "sind"):
            return [(m.start(1), "a group")]
    return []


def foreign_people(text: str, language: str) -> list[str]:
    """The people a question in ``language`` names (``FOREIGN_PERSON_WORDS``), in the order they are first named, no
    repeats: "wann verliert er die Beherrschung?" -> ["a man"]; "她什么时候对他翻白眼？" -> ["a woman", "a man"]. Whole
    words (any case) in a spaced language, the longest first and without overlaps in Chinese; [] in a language without
    a list. A French pronoun joined to its verb by a hyphen names a person only as the inverted subject of a question
    with no noun before its verb, and German "sie" only after "wann" and a verb that tells it from "they"
    (``_pronoun_subject``)."""
    words = FOREIGN_PERSON_WORDS.get(language, {})
    lowered = text.lower()
    found = _pronoun_subject(lowered, language)
    taken = {i for i, _ in found}
    if language == "fr":  # every other pronoun joined to a verb repeats a subject named before it
        joined = re.finditer(r"-(?:t-)?(?:il|elle|ils|elles)\b", lowered)
        taken |= {i for m in joined for i in range(m.start(), m.end())}
    for word in sorted(words, key=len, reverse=True):
        for m in re.finditer(_word_pattern(word, language), lowered):
            if not taken.intersection(range(m.start(), m.end())):
                found.append((m.start(), words[word]))
                taken.update(range(m.start(), m.end()))
    return list(dict.fromkeys(person for _, person in sorted(found)))


@functools.lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(sorted(USE_LANGUAGES))
    return identifier


def has_english_marker(text: str) -> bool:
    """Whether a word of ``text`` is one of ``ENGLISH_MARKERS`` (any case)."""
    return bool(ENGLISH_MARKERS.intersection(_WORD.findall(text.lower())))


@functools.lru_cache(maxsize=256)
def question_language(text: str) -> str:
    """The ISO 639-1 code of the language ``text`` is written in, one of ``USE_LANGUAGES`` ("en" for English; "zh"
    for Chinese in either script): "en" when a word of it is one of ``ENGLISH_MARKERS``, else py3langid's most probable
    language among those when its probability reaches ``MIN_LANGUAGE_P``, else the language of its frame words when
    they name py3langid's or one language alone (``framed_languages``), else "en" (see the module doc). The same text
    gives the same code on every machine."""
    if has_english_marker(text):
        return "en"
    language, p = _identifier().classify(text)
    if p >= MIN_LANGUAGE_P:
        return language
    framed = framed_languages(text)  # "Quand est-elle triste ?": French 0.66, but "quand" is no English word
    return language if language in framed else framed[0] if len(framed) == 1 else "en"


def framed_languages(text: str) -> list[str]:
    """The languages of ``QUESTION_FRAMES`` one of whose frame words ("quand", "wann", "什么时候") ``text`` holds, sorted:
    whole words in any case, anywhere in a language of ``_UNSPACED``. None is an English word, so a question below
    ``MIN_LANGUAGE_P`` that holds one is read in that language (``question_language``; section 194)."""
    lowered = text.lower()
    return sorted(language for language, words in QUESTION_FRAMES.items()
                  if any(re.search(_word_pattern(word, language), lowered) for word in words))


def language_notes(query: str) -> list[str]:
    """What the answer must say of how the offline reader read ``query``: nothing for an English question; for one in
    another language, which one and what of it was read (``agents.intent.offline_intent``)."""
    language = question_language(spelled_out(query))
    if language == "en":
        return []
    people = ("the people it names by pronoun or noun were read" if language in FOREIGN_PERSON_WORDS
              else "the people it names were not read")
    return [(f"the question reads as language '{language}': the feeling it asks about was read with the multilingual "
             f"sentence encoder and {people}; a change of feeling and negation are read in English questions only")]
