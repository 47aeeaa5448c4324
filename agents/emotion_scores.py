"""How strongly a question's words say each AffectNet-8 emotion: the scores the offline intent interpreter ranks
(``agents.intent.asked_emotions``). A phrase's cosine similarity to the emotions' descriptions, a bonus for an emotion
word, an idiom's or a word's gloss read beside it, an emotion the question negates ruled out, a viewer's stated
feeling read beside the memory's scene (``evals/RESULTS.md`` sections 23, 27, 28, 86, 90, 91, 175, 185).
"""

from __future__ import annotations

from agents.denied import negated_emotions
from agents.taxonomy import named_readings
from tools.perception.text_emotion import TextEmotion, load_text_emotion
from tools.signals.activity_words import named_beside_activity
from tools.signals.idioms import glossed_phrases
from tools.signals.lexicon import emotion_phrase
from tools.signals.look_phrases import without_linking_look
from tools.signals.memory_words import stated_feeling
from tools.signals.negation import split_negated

#: Added to the similarity of an emotion that a word of the question names (``tools.signals.lexicon.named_emotions``:
#: "livid" -> anger), chosen on the dev questions of ``studies.intent`` (0.05-0.5 tried; ``evals/RESULTS.md``
#: section 23).
WORD_BONUS = 0.2
#: Weight of an idiom's gloss beside the question's phrase (1: each emotion's score is the mean of the two), chosen on
#: the development questions of ``studies.build_idiom_glosses`` with the first sense read (0.5-2 and 1-3 senses tried;
#: ``evals/RESULTS.md`` section 86).
IDIOM_WEIGHT = 1.0
#: The score of an emotion that the question negates ("when is she not happy?"): below any cosine similarity, so it
#: is never asked about (``tools.signals.negation``).
NEGATED_SCORE = -1.0


def emotion_scores(query: str, whole_question: bool = False, words: bool = True, idioms: bool = True,
                   word_glosses: bool = True, negation: bool = True, text: TextEmotion | None = None,
                   stated: bool = True) -> dict[str, float]:
    """The score of each AffectNet-8 emotion for ``query`` (``agents.intent.asked_emotions`` ranks them): the cosine
    similarity of ``tools.signals.lexicon.emotion_phrase(query)`` to the emotion's descriptions, plus ``WORD_BONUS``
    for each emotion a word of that phrase names (``tools.signals.lexicon.named_emotions``, less an activity verb's
    later sense: ``tools.signals.activity_words.named_beside_activity``); where the phrase holds idioms or words with a
    gloss (``tools.signals.idioms.glossed_phrases``), ``(score + IDIOM_WEIGHT * g) / (1 + IDIOM_WEIGHT)``
    with ``g`` the emotion's highest similarity to their glosses. Words the phrase negates
    (``tools.signals.negation.split_negated``: "not happy", "without fear") add no bonus, and an emotion they name
    scores ``NEGATED_SCORE`` (``negated_emotions``); their glosses are read as the rest's (leaving them out lost "no
    emotion at all", whose gloss reads neutral; ``evals/RESULTS.md`` section 91). For the ablations of
    ``studies.intent``, ``studies.build_idiom_glosses``, ``studies.build_word_glosses`` and ``studies.negation``:
    ``words=False`` leaves the named words out, ``idioms=False`` every gloss, ``word_glosses=False`` the words'
    glosses, ``negation=False`` reads negated words as any others (contractions are written out either way),
    ``whole_question=True`` reads the whole question without any of them (the reading before all). ``text``: the
    scorer (default ``load_text_emotion()``; ``studies.descriptions`` passes one with other label descriptions).

    A viewer's memory that states how the moment felt (``tools.signals.memory_words.stated_feeling``: "I kinda
    remember a boy packing up his late dad's tools, felt so bereft") scores each emotion by the mean of the whole
    memory's score and the stated feeling's ("so bereft"), each read as above; an emotion either negates keeps
    ``NEGATED_SCORE``. Read alone, the stated feeling names no more labelled memories right than the whole does (102
    of 121 either way), and the whole lets the scene drown the feeling (``evals/RESULTS.md`` sections 27, 175);
    ``stated=False`` reads the whole memory alone (the reading before, for ``studies.memory_form``)."""
    if stated and not whole_question and (feeling := stated_feeling(query)) is not None:
        scene, said = (_phrase_scores(t, words, idioms, word_glosses, negation, text) for t in (query, feeling))
        return {k: NEGATED_SCORE if NEGATED_SCORE in (scene[k], said[k]) else (scene[k] + said[k]) / 2 for k in scene}
    return _phrase_scores(query, words, idioms, word_glosses, negation, text, whole_question)


def _phrase_scores(query: str, words: bool, idioms: bool, word_glosses: bool, negation: bool,
                   text: TextEmotion | None, whole_question: bool = False) -> dict[str, float]:
    """``emotion_scores`` of one text, read as a whole question's phrase (a viewer's stated feeling aside)."""
    phrase = query if whole_question else without_linking_look(emotion_phrase(query))
    text = text or load_text_emotion()
    emotions, _ = text.similarities(phrase)
    if whole_question:
        return emotions
    affirmed, scopes = split_negated(emotion_phrase(query, punctuation=True)) if negation else (phrase, [])
    if words:
        for emotion in named_beside_activity(affirmed) or named_readings(affirmed, query):  # "proud": a taxonomy's
            emotions[emotion] += WORD_BONUS
    glossed = glossed_phrases(phrase, words=word_glosses) if idioms else []
    glosses = [text.similarities(gloss)[0] for _, gloss in glossed]
    if glosses:
        for emotion in emotions:
            g = max(sims[emotion] for sims in glosses)
            emotions[emotion] = (emotions[emotion] + IDIOM_WEIGHT * g) / (1 + IDIOM_WEIGHT)
    for emotion in negated_emotions(scopes, idioms=idioms, word_glosses=word_glosses, text=text):
        emotions[emotion] = NEGATED_SCORE
    return emotions
