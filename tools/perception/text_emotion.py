"""What a text says about feelings: emotion and cue scores of a question, emotion of spoken words.

``similarities`` (the intent interpreter's reading of a question): a zero-shot text classifier in the
style of embedding-similarity labelling (e.g. Yin et al., 2019, zero-shot text classification
benchmarks): each label's score is the highest cosine similarity (all-MiniLM-L6-v2) between the text
and the label's descriptions in ``tools.signals.lexicon``.

``distribution`` (the emotion of what someone says, the verbal modality): the words8 head
(``WORDS8_HEAD``), a logistic regression over the same sentence vectors trained on MELD's spoken
utterances (``studies.train_text``; model card ``tools/models/WORDS8.md``): on MELD test, weighted F1
0.515 and macro-F1 0.377 where the similarity scorer reaches 0.204 / 0.183 (``evals/results/words_test.json``).
Without the head file it falls back to the similarity scorer (``lexicon_distribution``).

Words in other languages: ``load_text_emotion(encoder="use-multilingual")`` reads them with the words8 head
refitted over the multilingual Universal Sentence Encoder (``WORDS8_USE_HEAD``; same MELD data and split):
weighted F1 0.517 on MELD test (English), and on emotion-annotated film subtitles in other languages (XED,
labels projected from English; ``studies.xed``) six-class accuracy 0.21-0.35 where the English head over
MiniLM reads 0.16-0.24 (chance 0.17).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from tools.core.schema import AFFECTNET8
from tools.perception.heads import LinearHead, softmax
from tools.perception.text import TextEncoder, load_transcript_encoder
from tools.signals.descriptions import described_in, translated_languages
from tools.signals.lexicon import CUE_DESCRIPTIONS, EMOTION_DESCRIPTIONS
from tools.signals.timeline import reading_dict

#: The words8 head: AffectNet-8 probabilities of an utterance from its sentence vector (contempt ~0, MELD has none).
WORDS8_HEAD = Path(__file__).parents[1] / "models" / "words8_head.npz"
#: The same head over the multilingual USE's vectors (``tools.perception.text.MultilingualUSEEncoder``).
WORDS8_USE_HEAD = Path(__file__).parents[1] / "models" / "words8_use_head.npz"
#: The words8 head of each transcript encoder (``tools.perception.text.TRANSCRIPT_ENCODERS``).
WORDS8_HEADS = {"minilm": WORDS8_HEAD, "use-multilingual": WORDS8_USE_HEAD}


class TextEmotion:
    """Scores texts against the AffectNet-8 and cue descriptions with ``encoder``, and reads the emotion of
    spoken words with the words8 head over the same encoder when ``head`` exists (see the module doc)."""

    def __init__(self, encoder: TextEncoder, head: str | Path | None = WORDS8_HEAD,
                 descriptions: dict[str, list[str]] | None = None) -> None:
        """``descriptions``: AffectNet-8 label -> the phrases it is scored against (default
        ``tools.signals.lexicon.EMOTION_DESCRIPTIONS``; a study compares others)."""
        self.encoder = encoder
        self._head = LinearHead.load(head) if head is not None and Path(head).is_file() else None
        self.name = (f"words8-head:{Path(head).name}+" if self._head else "") + f"lexicon-similarity:{encoder.name}"
        descriptions = EMOTION_DESCRIPTIONS if descriptions is None else descriptions
        described = {**{("emotion", k): v for k, v in descriptions.items()},
                     **{("cue", k): v for k, v in CUE_DESCRIPTIONS.items()}}
        vectors = encoder.encode_fixed([text for texts in described.values() for text in texts])
        bounds = np.cumsum([0, *map(len, described.values())])
        read = {key: vectors[a:b] for key, a, b in zip(described, bounds[:-1], bounds[1:], strict=True)}
        self._emo = {k: read["emotion", k] for k in descriptions}
        self._cue = {k: read["cue", k] for k in CUE_DESCRIPTIONS}

    def similarities(self, text: str) -> tuple[dict[str, float], dict[str, float]]:
        """Cosine similarity (-1..1) of ``text`` to each emotion and each cue (max over phrases)."""
        q = self.encoder.encode([text])[0]
        return self._emotion_similarities(q), {k: float((v @ q).max()) for k, v in self._cue.items()}

    def peaks(self, texts: list[str]) -> list[float]:
        """The highest emotion similarity (``similarities``) of each of ``texts``, encoded as one batch."""
        return [max(scores.values()) for scores in self.emotion_similarities(texts)]

    def emotion_similarities(self, texts: list[str]) -> list[dict[str, float]]:
        """The emotion similarities (``similarities``' first) of each of ``texts``, encoded as one batch."""
        vectors = self.encoder.encode(list(texts)) if texts else []
        return [self._emotion_similarities(q) for q in vectors]

    def _emotion_similarities(self, q: np.ndarray) -> dict[str, float]:
        """Cosine similarity of one sentence vector ``q`` (D,) to each emotion (max over its phrases)."""
        return {k: float((v @ q).max()) for k, v in self._emo.items()}

    def distribution(self, text: str) -> dict[str, float]:
        """AffectNet-8 probabilities of what ``text`` (someone's words) expresses: the words8 head, or
        ``lexicon_distribution`` without it."""
        return self.read(self.encoder.encode([text]))[0]

    def read(self, vectors: np.ndarray) -> list[dict[str, float]]:
        """``distribution`` of each sentence vector (N, D) of ``encoder``, for a caller that has them already."""
        if self._head is None:
            return [self._lexicon(q) for q in vectors]
        return [reading_dict(p) for p in self._head.probs(vectors)]

    def lexicon_probs(self, vectors: np.ndarray, temperature: float = 0.05) -> np.ndarray:
        """``lexicon_distribution`` (N, 8), AffectNet-8 order, of sentence vectors (N, D) of ``encoder``."""
        return np.stack([softmax(np.array([(self._emo[k] @ q).max() for k in AFFECTNET8]) / temperature)
                         for q in vectors]) if len(vectors) else np.zeros((0, len(AFFECTNET8)))

    def lexicon_distribution(self, text: str, temperature: float = 0.05) -> dict[str, float]:
        """Softmax over AffectNet-8 of the emotion similarities (``temperature`` in cosine units)."""
        return self._lexicon(self.encoder.encode([text])[0], temperature)

    def _lexicon(self, q: np.ndarray, temperature: float = 0.05) -> dict[str, float]:
        return reading_dict(self.lexicon_probs(q[None], temperature)[0])


def load_text_emotion(device: str = "cpu", encoder: str = "minilm") -> TextEmotion:
    """The cached scorer on a transcript encoder (``tools.perception.text.TRANSCRIPT_ENCODERS``; default the English
    all-MiniLM-L6-v2), with that encoder's words8 head when its file is present.

    ``device`` (``cpu``, ``cuda``, ``cuda:N``) is the sentence encoder's: all-MiniLM-L6-v2 runs in torch on a
    GPU (onnxruntime on the CPU), the multilingual USE in numpy on the CPU whatever the device; the words8 head
    is a numpy linear model over the sentence vectors.

    Raises:
        tools.core.registry.UnknownBackendError, tools.core.registry.BackendUnavailableError: as ``load_transcript_encoder``.
    """
    return _text_emotion(device, encoder)


def load_language_emotion(language: str) -> TextEmotion:
    """The multilingual scorer (``load_text_emotion(encoder="use-multilingual")``) for a question in ``language`` (ISO
    639-1): in Spanish, German, French or Chinese its emotion descriptions are the English ones and their translations
    (``tools.signals.descriptions.described_in``), so the question is read against phrases of its own language too; in
    another language, that scorer itself. Cached per language. Raises as ``load_text_emotion``."""
    if language not in translated_languages():
        return load_text_emotion(encoder="use-multilingual")
    return _language_emotion(language)


@functools.cache
def _language_emotion(language: str) -> TextEmotion:
    use = load_text_emotion(encoder="use-multilingual")
    return TextEmotion(use.encoder, head=WORDS8_HEADS.get("use-multilingual"), descriptions=described_in(language))


@functools.lru_cache(maxsize=4)
def _text_emotion(device: str, encoder: str) -> TextEmotion:
    """``load_text_emotion``'s scorer, cached by its arguments as given in full (``load_text_emotion()`` and
    ``load_text_emotion("cpu", "minilm")`` are one scorer)."""
    return TextEmotion(load_transcript_encoder(encoder, device=device), head=WORDS8_HEADS.get(encoder))
