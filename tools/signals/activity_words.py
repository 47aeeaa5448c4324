"""Questions about an activity: "when are they swimming in the sea?", "when does she eat lunch?", "when does he walk
out of the room?" ask when someone does something, not how they feel. Read by ``agents.intent.chosen_emotions``
(through ``agents.intent.plain_activity``) as it reads a question about a gesture or a look, and by
``tools.signals.behaviour_words.says_feeling`` and ``agents.emotion_scores``: a verb whose first sense is the doing
says no feeling through a later sense of it ("eat", WordNet's "worry"; "swimming", "brimming with tears"; but also
"unwind after work", whose relaxing is the later sense) (``evals/RESULTS.md`` section 191).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from tools.signals.idioms import glossed_idioms
from tools.signals.lexicon import emotion_phrase, emotion_words
from tools.signals.word_forms import matched_phrases, verb_stems

#: Verbs of one word whose first WordNet sense is a doing (walking, eating, touching, making, playing), and every other
#: verb of one word: from Open English WordNet (CC BY 4.0) by ``studies.build_activity_words``.
ACTIVITY_VERBS = Path(__file__).parents[1] / "data" / "activity_verbs.json"
#: Words read past on the way to a question's verb: aspect and linking verbs, "to" and "be", adverbs of time
#: ("when does she start typing?", "when does he stop eating his soup?", "when does she go swimming in the lake?"; a
#: word in "-ly" is read past as well: "when does he slowly eat his soup?", and ``agents.intent.plain_activity`` reads
#: it for a feeling). A linking verb read past leaves its complement, which is no activity ("go pale", "turn green",
#: "fall silent", "come undone").
_LEAD_WORDS = frozenset({
    "start", "starts", "started", "starting", "begin", "begins", "began", "beginning", "keep", "keeps", "kept",
    "keeping", "stop", "stops", "stopped", "stopping", "finish", "finishes", "finished", "finishing", "try", "tries",
    "tried", "trying", "want", "wants", "wanted", "get", "gets", "got", "getting", "seem", "seems", "seemed", "go",
    "goes", "went", "gone", "going", "turn", "turns", "turned", "turning", "fall", "falls", "fell", "fallen",
    "falling", "come", "comes", "came", "coming", "down", "to", "be", "being", "is", "are", "was", "were", "first",
    "just", "still", "ever", "again", "almost", "both", "all", "each", "also", "then"})
def lead_word(word: str) -> bool:
    """Whether ``word`` is read past on the way to a question's verb: one of ``_LEAD_WORDS`` or an adverb in "-ly"."""
    return word in _LEAD_WORDS or word.endswith("ly")


@functools.cache
def _verbs() -> tuple[frozenset[str], frozenset[str]]:
    """(activity verbs, other verbs) of ``ACTIVITY_VERBS``.

    Raises:
        FileNotFoundError: ``ACTIVITY_VERBS`` is missing (build it with ``python -m studies.build_activity_words``).
    """
    record = json.loads(ACTIVITY_VERBS.read_text())
    return frozenset(record["activity"]), frozenset(record["other"])


@functools.cache
def activity_verb(query: str) -> str:
    """The word of ``query`` (a question, or its main clause: ``tools.signals.clauses.main_clause``) that names an
    activity, or "": the first word of its feeling phrase (``tools.signals.lexicon.emotion_phrase``) past the words
    ``lead_word`` reads past, with words after it (what is done, where: "eat lunch", "walk out of the room"; a verb
    alone is the whole question, "when does she tremble?", and read as such), where each of its verb forms that
    WordNet holds (``tools.signals.word_forms.verb_stems``) is an activity verb of ``ACTIVITY_VERBS`` ("pining" is "pin"
    and "pine": not one), not a participle in "-ed" (after the frame of a question a state: "when does she seem
    defeated?", "when is he crushed?"), and the question likens it to nothing ("shaking like a leaf", "sit there like
    a statue" say how someone feels) and holds no idiom of several words (``tools.signals.idioms.glossed_idioms``:
    "eat one's heart out"; also "scratch one's head"). Cached: a question's reading asks it of the same text several
    times (``agents.intent.plain_activity``, ``says_feeling``, ``agents.emotion_scores``)."""
    phrase = emotion_phrase(query, fallback=False)
    words = phrase.split()
    at = next((i for i, w in enumerate(words) if not lead_word(w)), len(words))
    head, activity, other = (words[at] if at < len(words) - 1 else ""), *_verbs()  # a verb with nothing after it:
    if not head or head.endswith("ed") or "like" in words:  # the question is the verb; "seem defeated": a state
        return ""
    verbs = [s for s in verb_stems(head) if s in activity or s in other]
    if not verbs or not all(s in activity for s in verbs) or any(" " in key for key, _ in glossed_idioms(phrase)):
        return ""  # an idiom says more than the doing: "eat one's heart out", "throw in the towel"
    return head


def activity_forms(query: str) -> frozenset[str]:
    """The forms of ``query``'s activity verb (``activity_verb``) as a word list may hold them ("swimming", "swim"),
    none where it names no activity: a word list's entry that is one of them alone says no feeling of the question's
    (``tools.signals.behaviour_words.says_feeling``)."""
    head = activity_verb(query)
    return frozenset(verb_stems(head)) if head else frozenset()


def without_activity_verb(query: str) -> str:
    """``query`` without its activity verb (``activity_verb``), where it names one: what else it says, read for a
    feeling ("when does she eat her lunch in tears?" -> "when does she her lunch in tears?")."""
    head = activity_verb(query)
    if not head:
        return query
    return " ".join(re.sub(rf"\b{re.escape(head)}\b", " ", query, count=1, flags=re.IGNORECASE).split())


def named_beside_activity(phrase: str) -> list[str]:
    """The AffectNet-8 emotions the emotion words of ``phrase`` name (``tools.signals.lexicon.named_emotions``), less
    an entry that is its activity verb alone (``activity_forms``), whose feeling comes from a sense other than its
    first: "eat lunch" names none (WordNet's "eat": "worry"), "eat lunch, furious" anger; so does "unwind after work"
    (relaxing is "unwind"'s second sense, after undoing a winding)."""
    own, words = activity_forms(phrase), emotion_words()
    return list(dict.fromkeys(words[key] for key in matched_phrases(phrase, words) if key not in own))
