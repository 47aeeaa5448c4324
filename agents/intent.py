"""Intent interpreter: vague query -> target AffectNet-8 emotions, people, cues, search text.

Offline (``offline_intent``): cosine similarity (all-MiniLM-L6-v2) to the AffectNet-8 and cue descriptions
of ``tools.signals.lexicon``: the emotions from what the question says of the feeling (``tools.signals.lexicon.emotion_phrase``:
"when does she feel left out?" -> "feel left out"), the cues from the whole question; plus the people it
names (``tools.signals.lexicon.person_phrases``: person words, with a screen position when one follows a person
noun). A question about behaviour ("when does he point at someone?", "when does she look at him?": it names
a gesture or gaze, ``tools.signals.lexicon.names_behaviour``), or about what is said ("when does she mention being
new?", ``tools.signals.lexicon.names_speech``), names no emotion unless one reaches ``BEHAVIOUR_ONLY_BELOW`` or it says
a feeling (``says_feeling``), and carries the cue its words name (speech, gesture); a question about an activity
("when does she eat lunch?", ``tools.signals.activity_words``) names none unless it says one or its other words read
as one. How strongly the words say each emotion is ``agents.emotion_scores``: a word or idiom of the phrase that names
a feeling in Open English WordNet (``tools.signals.lexicon.named_emotions``: "livid", "hit the roof" -> anger) adds a
bonus to that emotion; an idiom of the phrase that Wiktionary glosses (``tools.signals.idioms``: "light up", "on
edge", "lose one's cool"), or a word WordNet defines as a feeling without filing it under one ("snide", "fuming"), is
read through its gloss as well. An emotion that words the question negates name ("when is she not happy?";
``tools.signals.negation``, after NegEx) is never a target.
A question with a clause that sets its context ("when does she look hurt after he mentions her ex?") is read by its
main clause (``tools.signals.clauses.main_clause``). A question about a change of feeling ("when does her mood
change?", "when does he go from calm to angry?", "when does he stop smiling?"; ``agents.change.ask_change``) sets
``Intent.change`` with the emotions it names before and after (none for a side that only denies one,
``side_emotions``); its target emotions are those after the change. Measured on labelled and held-out questions by
``studies.intent``, ``studies.build_idiom_glosses``, ``studies.build_word_glosses`` and ``studies.negation``
(``evals/RESULTS.md`` sections 23, 27, 28, 86, 90, 91, 177, 178; ``evals/results/intent_*.json``,
``idiom_glosses_dev.json``, ``word_glosses_dev.json``, ``negation_*.json``); on questions about behaviour by
``studies.behaviour_questions`` (section 141, ``behaviour_questions.json``).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agents.change import ask_change
from agents.emotion_scores import NEGATED_SCORE, emotion_scores
from agents.llm import LLMTask
from agents.schema import Intent
from agents.state import AffectState, RunContext
from agents.taxonomy import load_taxonomy
from tools.core.schema import AFFECTNET8
from tools.perception.language import foreign_people, question_core, question_language, question_words
from tools.perception.text_emotion import TextEmotion, load_language_emotion, load_text_emotion
from tools.signals.activity_words import activity_verb, without_activity_verb
from tools.signals.behaviour_words import (
    BEHAVIOUR_ONLY_BELOW,
    glosses_beside_look,
    says_feeling,
    without_behaviour_words,
    without_look_phrases,
)
from tools.signals.change_words import asked_order, departure_clause, ending_phrases, from_to_sides
from tools.signals.clauses import main_clause
from tools.signals.coordination import affirmed_emotions, joined_emotions
from tools.signals.descriptions import label_offsets
from tools.signals.emoji import spelled_out
from tools.signals.feeling_owner import feeling_owner
from tools.signals.lexicon import (
    CUE_DESCRIPTIONS,
    EMOTION_DESCRIPTIONS,
    MIN_CUE_SIM,
    emotion_phrase,
    names_behaviour,
    names_speech,
    person_phrases,
)
from tools.signals.open_feeling import asks_open_feeling, feeling_subject
from tools.signals.time_words import asked_window, without_window

#: Similarity below which a query is taken to name no emotion (MiniLM cosine; unrelated text ~0.0-0.15).
MIN_EMOTION_SIM = 0.25
#: ``MIN_EMOTION_SIM`` for a question in another language, read without its frame words against the English
#: descriptions and their translations into its language (``foreign_reading``; multilingual Universal Sentence Encoder
#: cosine). Chosen with ``FOREIGN_WORD_FROM`` and ``FOREIGN_WORD_LEAD`` by section 107's rule, the two shares (feelings
#: named right first, questions about no feeling kept empty) weighed alike, over the whole reading: of 0.30-0.45 and
#: the pairs of 0.30-0.44 and 0-0.08 tried on the 1,120 translated development questions
#: (``studies.translated_questions.reading_trials``), 488 right of 960 and 157 of 160 kept empty (before: 0.34, 0.40
#: and 0.05 against the English descriptions alone, 464 and 152; ``evals/RESULTS.md`` sections 107, 192 and 194).
#: Kept, not chosen again, when section 195 took each label's offset from the similarities
#: (``studies.translated_questions.centring_trials``: 513 and 156).
FOREIGN_MIN_EMOTION_SIM = 0.40
#: At or above this, an activity verb read alone is a sign of a feeling to the sentence encoder ("trembling" fear 0.45,
#: "punch" anger 0.40, "flinch" surprise 0.53; "eat" 0.24, "scratch" 0.27, "running" 0.38), and at or above
#: ``WORD_SIGN_FROM`` a word after it ("tears" 0.56, "grin" 0.47, "cry" 0.46; "forehead" 0.41, "eyes" 0.40), so the
#: question is no plain activity (``plain_activity``); chosen on development questions and probes (``evals/RESULTS.md``
#: section 191).
SIGN_FROM, WORD_SIGN_FROM = 0.38, 0.45
#: A word of a question in another language names the emotion it reads closest to alone when that similarity reaches
#: ``FOREIGN_WORD_FROM`` and leads the word's second emotion by ``FOREIGN_WORD_LEAD`` (``word_feeling``; chosen with
#: ``FOREIGN_MIN_EMOTION_SIM``, section 194: no lead is needed once the word is read against its own language's
#: descriptions too). Section 192 chose 0.40 and 0.05 behind the English descriptions alone.
FOREIGN_WORD_FROM, FOREIGN_WORD_LEAD = 0.40, 0.0
#: Emotions within this similarity of the best one are kept as targets too (at most two).
EMOTION_MARGIN = 0.04
def side_emotions(phrase: str) -> list[str]:
    """The emotions one side of a change question names (``agents.change.ask_change``): ``asked_emotions``, or none
    (any emotion) when the side only denies one ("from calm to *not angry*", "from angry to *no longer angry*"), since
    the emotion nearest a denial is no reading of what comes after it."""
    scores = emotion_scores(phrase)
    if NEGATED_SCORE in scores.values() and not affirmed_emotions(phrase):  # a denied emotion, none affirmed
        return []
    return chosen_emotions(scores, phrase)


def chosen_emotions(scores: dict[str, float], query: str, floor: float = MIN_EMOTION_SIM, joined: bool = True
                    ) -> list[str]:
    """The emotions ``scores`` (``emotion_scores``) make ``query`` ask about, best first: at most two, within
    ``EMOTION_MARGIN`` of the best and at least ``floor``, or with ``joined`` each that feeling words joined by "or",
    "and" or "nor" name (``tools.signals.coordination``); none for a question asking which feeling someone shows
    (``asks_open_feeling``) or one about behaviour or speech that says no feeling (``says_feeling``) and reads below
    ``BEHAVIOUR_ONLY_BELOW``, or, glossing none either, does so without its behaviour and speech words (for a look
    alone, ``tools.signals.look_phrases.LOOK_PHRASES``, only the latter, its own words glossing none: "look up in
    shock" reads surprise, "look out of the window" none); none for a question about a plain activity
    (``plain_activity``) that says no feeling and reads below the bar with and without its verb ("when does she eat
    lunch?"; not "... lunch in tears?")."""
    if asks_open_feeling(query):
        return []
    ranked = sorted(scores, key=lambda k: -scores[k])
    best = scores[ranked[0]]
    behaviour = names_behaviour(without_look_phrases(query), looks=False) or names_speech(query)  # "lower her gaze"
    look = not behaviour and names_behaviour(query)  # a look alone: its words, not the whole, say no feeling
    if not (behaviour or look or says_feeling(query)) and plain_activity(query) and (
            max(best, *emotion_scores(without_activity_verb(query)).values()) < BEHAVIOUR_ONLY_BELOW):
        return []
    if (behaviour or look) and not says_feeling(query) and (
            best < BEHAVIOUR_ONLY_BELOW and not look
            or not (glosses_beside_look(query) if look else says_feeling(query, glosses=True))
            and max(emotion_scores(without_behaviour_words(query)).values()) < BEHAVIOUR_ONLY_BELOW):
        return []
    near = [k for k in ranked[:2] if scores[k] >= max(floor, best - EMOTION_MARGIN)]
    return (joined and joined_emotions(query, scores)) or near


def plain_activity(query: str) -> str:
    """``tools.signals.activity_words.activity_verb`` of ``query`` where neither it nor another word of the question's
    phrase, read alone, is a sign of a feeling (``SIGN_FROM``, ``WORD_SIGN_FROM``: "when does
    he punch the wall?", "when does she eat lunch and then cry?", "when does he grumpily eat?"), else ""; the words
    are encoded as one batch."""
    if not (doing := activity_verb(query)):
        return ""
    words = [w for w in emotion_phrase(query).split() if w != doing]  # "glumly", "in tears"
    peaks = load_text_emotion().peaks([doing, *words])
    return "" if peaks[0] >= SIGN_FROM or any(p >= WORD_SIGN_FROM for p in peaks[1:]) else doing


def feeling_change(query: str) -> bool:
    """Whether a question's "go from A to B", or what it says ends ("stop smiling", "her smile fades";
    ``tools.signals.change_words.ending_phrases``), is a change of feeling: it says one (``says_feeling``) or a side
    reaches ``BEHAVIOUR_ONLY_BELOW`` ("from calm to angry"; not "from sitting to standing", "from English to French",
    "stop talking"). Another question, and one about a feeling after someone leaves, is left to
    ``agents.change.ask_change``."""
    sides = from_to_sides(query) or (None if departure_clause(query) else ending_phrases(query))
    return sides is None or says_feeling(query) or any(max(emotion_scores(s).values()) >= BEHAVIOUR_ONLY_BELOW
                                                         for s in sides if s)


def asked_emotions(query: str, whole_question: bool = False, words: bool = True, idioms: bool = True,
                   word_glosses: bool = True, negation: bool = True, text: TextEmotion | None = None,
                   stated: bool = True, main: bool = True) -> list[str]:
    """The AffectNet-8 emotions ``query`` asks about, most likely first: ``chosen_emotions`` of ``emotion_scores``
    (the arguments are that function's; the words joined by "or" and "and" are read with ``words`` and ``negation``).
    With ``main``, a question with a clause that sets its context is read by its main clause alone
    (``tools.signals.clauses.main_clause``: "when does the boy sulk after his mother scolds him?" asks the boy's
    sulking; ``evals/RESULTS.md`` section 177)."""
    read = (main and not whole_question and main_clause(query)) or query
    return chosen_emotions(emotion_scores(read, whole_question, words, idioms, word_glosses, negation, text, stated),
                           read, joined=words and negation)


def foreign_reading(query: str, language: str, centred: bool = True) -> tuple[list[str], dict[str, float]]:
    """(the AffectNet-8 emotions a question in ``language``, not English, asks about, its similarity to each cue):
    ``chosen_emotions`` at ``FOREIGN_MIN_EMOTION_SIM`` of the cosine similarity of the question without its frame words
    (``tools.perception.language.question_core``: "¿cuándo se siente alguien rechazado?" -> "se siente rechazado") to
    the English descriptions and, in Spanish, German, French and Chinese, their translations, under the multilingual
    Universal Sentence Encoder (``tools.perception.text_emotion.load_language_emotion``), which places a sentence and
    its translation close together (``evals/RESULTS.md`` sections 105, 107 and 194). A question whose whole reads as
    no feeling is read word by word (``tools.perception.language.question_words``, one batch): it asks the emotion of
    its strongest word that reads as one (``word_feeling``; section 192). With ``centred``, each similarity, the
    question's and its words', less its label's offset (``tools.signals.descriptions.label_offsets``, one set for the
    four languages: surprise's phrases lie near every question; section 195); the cues' similarities as read."""
    reader = load_language_emotion(language)
    offsets = label_offsets(language) if centred else {}
    scores, cues = reader.similarities(question_core(query, language))
    targets = centred_targets(query, scores, offsets)
    if not targets and (words := question_words(query, language)):
        targets = centred_word(reader.emotion_similarities(words), offsets)
    return targets, cues


def centred_targets(query: str, scores: dict[str, float], offsets: dict[str, float]) -> list[str]:
    """``foreign_reading``'s emotions of a whole question: ``chosen_emotions`` at ``FOREIGN_MIN_EMOTION_SIM`` of its
    similarities ``scores`` (label -> cosine) less ``offsets`` (label -> offset; a label without one keeps its own)."""
    return chosen_emotions(_less(scores, offsets), query, FOREIGN_MIN_EMOTION_SIM, joined=False)


def centred_word(readings: list[dict[str, float]], offsets: dict[str, float]) -> list[str]:
    """``foreign_reading``'s emotion of a question read word by word: ``word_feeling`` of each word's similarities
    ``readings`` less ``offsets``, as a list of none or one."""
    return [label] if (label := word_feeling([_less(s, offsets) for s in readings])) else []


def _less(scores: dict[str, float], offsets: dict[str, float]) -> dict[str, float]:
    return {label: score - offsets.get(label, 0.0) for label, score in scores.items()}


def word_feeling(readings: list[dict[str, float]], start: float = FOREIGN_WORD_FROM,
                 lead: float = FOREIGN_WORD_LEAD) -> str | None:
    """The emotion of the strongest of ``readings`` (each word's AffectNet-8 similarity under the multilingual encoder)
    whose top emotion reaches ``start`` and leads the word's second by ``lead``, or None."""
    named = [(top, label) for scores in readings
             for label, top, second in [(max(scores, key=scores.get), *sorted(scores.values(), reverse=True)[:2])]
             if top >= start and top - second >= lead]
    return max(named)[1] if named else None


def offline_intent(inputs: dict[str, Any]) -> Intent:
    """The offline reasoner's intent (see the module doc); emoji are read as their names
    (``tools.signals.emoji.spelled_out``: "when is she 😢?" asks about sadness). A question in another language
    (``tools.perception.language.question_language``) is read by ``foreign_reading``, its people by
    ``tools.perception.language.foreign_people`` (Spanish, German, French and Chinese); a change it asks about and its
    negations are read in English questions only."""
    query = spelled_out(inputs["query"])
    if (language := question_language(query)) != "en":
        (targets, cues), change = foreign_reading(query, language), None
        people = foreign_people(query, language)
    else:
        change = ask_change(query, side_emotions) if feeling_change(query) else None
        cues = load_text_emotion().similarities(query)[1]
        targets = change.after if change is not None else asked_emotions(query)
        people = person_phrases(query)
    cue_ranked = sorted(cues, key=lambda k: -cues[k])
    chosen_cues = [c for c in cue_ranked if cues[c] >= MIN_CUE_SIM] or cue_ranked[:1]
    if language == "en" and not targets and change is None:  # what it asks about, said in words, is a cue
        chosen_cues += [c for c, said in (("speech", names_speech(query)), ("gesture", names_behaviour(query)
                        and not {"gesture", "gaze"} & set(chosen_cues))) if said and c not in chosen_cues]
    open_feeling = language == "en" and change is None and asks_open_feeling(query)
    if (targets or change is not None or open_feeling) and "facial_expression" not in chosen_cues:
        chosen_cues.append("facial_expression")
    described = [EMOTION_DESCRIPTIONS[e][0] for e in targets]
    if open_feeling:  # whose feeling: the open question's frame, else a named feeling's owner (tools.signals)
        feeling_of = [p for p in person_phrases(feeling_subject(query)) if p in people]
    else:
        owner = feeling_owner(query) if language == "en" and (targets or change is not None) else ""
        feeling_of = [owner] if owner in people else []
    return Intent(target_emotions=targets, people=people, cues=chosen_cues, change=change,
                  search_text="; ".join([query, *described]), asks_feeling=open_feeling, feeling_of=feeling_of)


INTERPRET_INTENT = LLMTask(
    name="interpret_intent",
    prompt=(
        "You interpret a vague question about the people in a video. Give the AffectNet-8 emotions the "
        "question is about (most likely first; empty if it names none, as in 'how does she feel?'), the people it "
        "names, the kinds of evidence that would answer it (speech, facial_expression, gaze, gesture, voice, "
        "group), a short plain-language description of the moment to search for, target_labels: the "
        "labels of answer_labels (name: description) the question is about, most likely first, and, only when "
        "the question asks when a feeling changes, change: the emotions it names before and after the change "
        "(empty lists for sides it does not name; target_emotions are then those after), with departure true when it "
        "asks how someone feels after another person leaves."
    ),
    schema=Intent,
    offline=offline_intent,
)


def interpret_intent(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """The LLM's ``Intent`` of the query without the part of the video it names (``window``: seconds or None,
    ``tools.signals.time_words``), in the answer's label set: a hosted model's chosen labels, else
    ``Taxonomy.asked_labels`` ("proud" -> Pride sets the AffectNet-8 targets), with the order of time asked
    (``change_words.asked_order``); returns ``intent``, ``search_text``, ``round`` = 0, ``window``, that ``query``."""
    taxonomy = load_taxonomy(runtime.context.settings.labels)
    query = without_window(state["query"], window := asked_window(state["query"]))  # "in the last ten minutes"
    intent = runtime.context.llm.structured(
        INTERPRET_INTENT, {"query": query, "labels": list(AFFECTNET8), "cue_names": list(CUE_DESCRIPTIONS),
                           "answer_labels": {lab.name: lab.description for lab in taxonomy.labels}})
    chosen, asked = [], main_clause(query) or query  # a clause of context asks no label or order
    for name in intent.target_labels:
        try:
            chosen.append(taxonomy.canonical(name))
        except KeyError:
            continue
    asks_feeling = intent.asks_feeling and intent.change is None  # which feeling: the answer's, not label words'
    if chosen:
        labels, targets = list(dict.fromkeys(chosen)), intent.target_emotions or taxonomy.support(chosen)
    else:
        labels, targets = ([], []) if asks_feeling else taxonomy.asked_labels(asked, intent.target_emotions)
    intent = intent.model_copy(update={"target_emotions": targets, "target_labels": labels, "asks_feeling": asks_feeling,
                                       "order": intent.order or asked_order(asked)})
    return {"intent": intent, "search_text": intent.search_text or query, "round": 0, "query": query,  # for the rest
            "window": window.resolve(runtime.context.index.info.duration_s) if window else None}


def describe(update: dict) -> str:
    """The trace line of this node: the interpreted intent."""
    i = update["intent"]
    asked = f" labels={i.target_labels}" if i.target_labels and i.target_labels != i.target_emotions else ""
    change = f" change={i.change.before or ['any']}->{i.change.after or ['any']}" if i.change else ""
    change += " at a departure" if i.change and i.change.departure else ""
    span = f" window={update['window'][0]:g}-{update['window'][1]:g}s" if update.get("window") else ""
    return f"emotions={i.target_emotions or ['any']}{asked}{change}{span} people={i.people} cues={i.cues}"
