"""The labelled questions (``evals/data/questions.jsonl``): 96 vague questions about a video, 12 per
AffectNet-8 emotion, each labelled with the emotion it asks about, and their dev/test split by question.
``studies.intent`` scores the intent interpreter on them; ``evals.composed`` can word its benches' queries
with them."""

from __future__ import annotations

import json
import random
from pathlib import Path

from tools.core.schema import AFFECTNET8

QUESTIONS = Path(__file__).parent / "data" / "questions.jsonl"
#: Held-out questions, idioms and VQAU-Bench's memory form (``evals/data/SOURCES.md``): each file is development
#: material since it was read once (the second in ``evals/RESULTS.md`` section 86, the third in 90, the fourth in 91,
#: the fifth in 101, the sixth in 102); the seventh is unread.
HELDOUT = Path(__file__).parent / "data" / "questions_heldout.jsonl"
HELDOUT2 = Path(__file__).parent / "data" / "questions_heldout2.jsonl"
HELDOUT3 = Path(__file__).parent / "data" / "questions_heldout3.jsonl"
HELDOUT4 = Path(__file__).parent / "data" / "questions_heldout4.jsonl"
HELDOUT5 = Path(__file__).parent / "data" / "questions_heldout5.jsonl"
HELDOUT6 = Path(__file__).parent / "data" / "questions_heldout6.jsonl"
HELDOUT7 = Path(__file__).parent / "data" / "questions_heldout7.jsonl"
#: Negated questions ("when is she not happy?", form "negated": the label is the emotion the question denies) and
#: phrasings that look negated but are not ("when can't she stop laughing?", form "not_negated": the label is the
#: emotion asked), each marked dev or test by a seeded shuffle when written (``studies.negation``).
NEGATION = Path(__file__).parent / "data" / "questions_negation.jsonl"
#: A second such file, all test, written after the first file's read (``evals/RESULTS.md`` section 91).
NEGATION2 = Path(__file__).parent / "data" / "questions_negation2.jsonl"
#: Questions that deny feelings joined by "or" ("when is she not angry or sad?", form "negated_or": the label names
#: every denied emotion, joined by "|"), written before the reader read "or" within a cue's scope, dev or test by a
#: seeded shuffle (``evals/data/SOURCES.md``); read by ``studies.negation --disjunction`` (``evals/RESULTS.md`` section
#: 156).
NEGATION3 = Path(__file__).parent / "data" / "questions_negation3.jsonl"
#: Questions whose cue governs a stretch after "or" that shows a feeling ("when can't she smile or stop crying?", form
#: "shown_after_or": the label is the feeling shown), written before the reader read such a stretch as shown, dev or
#: test by a seeded shuffle (``evals/data/SOURCES.md``); read by ``studies.negation --shown`` (``evals/RESULTS.md``
#: section 159).
NEGATION4 = Path(__file__).parent / "data" / "questions_negation4.jsonl"
#: Questions that name their feeling with one word or phrase ("when does she look crestfallen?", "when is he
#: repelled?", form "feeling_word"; 8 per AffectNet-8 emotion), written before the word reader read a doubled
#: consonant before "-ed", dev or test by a seeded shuffle (``evals/data/SOURCES.md``); read by
#: ``studies.feeling_words`` (``evals/RESULTS.md`` section 160).
WORDS = Path(__file__).parent / "data" / "questions_words.jsonl"
#: A second such file, none of whose questions repeats an earlier file's, written after the first file's read.
WORDS2 = Path(__file__).parent / "data" / "questions_words2.jsonl"
#: Questions of each emotion that go to the test split (the rest are dev).
TEST_PER_EMOTION = 6


def split(split_name: str, path: Path = QUESTIONS) -> list[tuple[str, str]]:
    """(question, AffectNet-8 label) of one split of ``path``: per emotion, the first ``TEST_PER_EMOTION``
    of a shuffle seeded by the emotion's name are test, the rest dev.

    Raises:
        ValueError: ``split_name`` is not dev or test, or a line names an unknown emotion.
    """
    if split_name not in ("dev", "test"):
        raise ValueError(f"unknown split {split_name!r} (dev or test)")
    by_emotion: dict[str, list[str]] = {e: [] for e in AFFECTNET8}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            record = json.loads(line)
            if record["emotion"] not in by_emotion:
                raise ValueError(f"{path}:{n}: unknown emotion {record['emotion']!r}")
            by_emotion[record["emotion"]].append(record["query"])
    out = []
    for emotion, questions in by_emotion.items():
        order = random.Random(f"questions-{emotion}").sample(questions, len(questions))
        chosen = order[:TEST_PER_EMOTION] if split_name == "test" else order[TEST_PER_EMOTION:]
        out += [(q, emotion) for q in chosen]
    return out


def heldout(path: Path = HELDOUT, form: str | None = None) -> list[tuple[str, str]]:
    """(question, AffectNet-8 label) of a held-out question file, those of one ``form`` ("idiom" or "memory")
    when given."""
    return [(r["query"], r["emotion"]) for r in question_records(path) if form in (None, r["form"])]


def form_questions(form: str, split_name: str | None = None, path: Path = NEGATION) -> list[tuple[str, str]]:
    """(question, AffectNet-8 label) of a question file whose records name their form and split (the negation files
    ``NEGATION``, ``NEGATION2``, ``NEGATION3``, ``NEGATION4``, ``WORDS`` and ``WORDS2``) of one ``form``
    ("negated", "not_negated", ``NEGATION3``'s "negated_or", whose label names every denied emotion joined by "|":
    "anger|sadness", ``NEGATION4``'s "shown_after_or", ``WORDS``' and ``WORDS2``'s "feeling_word"), those of
    ``split_name`` ("dev" or "test") when given.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        KeyError: a record lacks "query", "emotion", "form" or "split".
    """
    return [(r["query"], r["emotion"]) for r in question_records(path)
            if split_name in (None, r["split"]) and r["form"] == form]


def question_records(path: Path) -> list[dict]:
    """The JSON records of a question file (``evals/data/questions*.jsonl``), one per non-empty line.

    Raises:
        FileNotFoundError: ``path`` does not exist.
    """
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_half(half: str, form: str, path: Path) -> list[tuple[str, str, list[str]]]:
    """(question, label, the shipped reader's target emotions) of ``half`` ("dev" or "test") of the questions of
    ``form`` in ``path`` (``form_questions``), each read by ``agents.intent.asked_emotions``.

    Raises:
        ValueError: ``half`` is neither "dev" nor "test".
        FileNotFoundError: ``path`` does not exist.
    """
    if half not in ("dev", "test"):
        raise ValueError(f"half must be 'dev' or 'test', not {half!r}")
    from agents.intent import asked_emotions

    return [(q, lab, asked_emotions(q)) for q, lab in form_questions(form, half, path)]
