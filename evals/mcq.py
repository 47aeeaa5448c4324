"""Multiple-choice social QA benches (Social-IQ 2.0 / Social Genome / HumanSense style).

``python -m evals.run --bench-format mcq --bench B.jsonl --method graph --out runs/NAME``. One JSON object
per line; video paths are relative to the bench file::

    {"id": "ham-react", "video": "../samples/hamilton_short.mp4", "question": "How does the audience react?",
     "options": ["They laugh and smile", "They boo", "They leave", "They cry"], "answer": 0,
     "trace": [{"modality": "visual", "text": "Several people smile and laugh.", "external_knowledge": false}]}

``answer`` is the 0-based index of the right option (a letter ``"A"``... is read too); ``trace`` (Social
Genome's reference reasoning steps, modality visual / verbal / vocal / n/a) is optional and scored by
``evals.metrics.rationale_similarity`` and ``trace_structure`` when present. Methods: ``graph`` (the
agent with ``--options``) and ``random`` (a seeded random option).
"""

from __future__ import annotations

import os
import random
import time
import zlib
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, field_validator, model_validator

from agents.schema import ReasoningStep
from evals.bench import load_items
from evals.formats import BenchFormat, register_format
from evals.metrics import emotion_word_overlap, rationale_similarity, trace_structure

#: Methods that answer multiple-choice questions.
MCQ_METHODS = ("graph", "random")


class McqItem(BaseModel):
    """One question about one video with its options, the right one and an optional reference trace."""

    id: str
    video: str
    question: str = Field(min_length=1)
    options: list[str] = Field(min_length=2)
    answer: int
    trace: list[ReasoningStep] = Field(default_factory=list)

    @field_validator("answer", mode="before")
    @classmethod
    def _letter(cls, v):
        if isinstance(v, str) and len(v.strip()) == 1 and v.strip().isalpha():
            return ord(v.strip().upper()) - ord("A")
        return v

    @model_validator(mode="after")
    def _in_range(self) -> McqItem:
        from graphs.pipeline import check_options

        check_options(self.options)  # as --options: 2 to 10, none empty or alike (a bench line that names one twice)
        if not 0 <= self.answer < len(self.options):
            raise ValueError(f"answer must index one of the {len(self.options)} options (0-based)")
        return self

    def video_path(self, bench_file: str | os.PathLike) -> Path:
        """The video's path, resolved against the bench file's folder when relative."""
        p = Path(self.video)
        return p if p.is_absolute() else (Path(bench_file).resolve().parent / p)


class McqPrediction(BaseModel):
    """One item's chosen option (None when the run failed) with its trace and cost."""

    id: str
    method: str
    option: int | None
    steps: list[ReasoningStep] = Field(default_factory=list)
    wall_s: float
    error: str | None = None


def load_mcq(path: str | os.PathLike) -> list[McqItem]:
    """Read and validate a multiple-choice bench (module doc).

    Raises:
        BenchError: as ``evals.bench.load_items``.
    """
    return load_items(path, McqItem)


def predict_mcq(method: str, item: McqItem, video: Path, ctx) -> McqPrediction:
    """Answer one item with ``method`` (``MCQ_METHODS``); ``ctx`` is an ``evals.methods.MethodContext``.

    Raises:
        ValueError: a method that does not answer multiple-choice questions.
    """
    if method not in MCQ_METHODS:
        raise ValueError(f"method {method!r} does not answer multiple-choice questions; use one of {MCQ_METHODS}")
    t0 = time.perf_counter()
    if method == "random":
        rng = random.Random(ctx.seed * 1_000_003 + zlib.crc32(item.id.encode()))
        option, steps = rng.randrange(len(item.options)), []
    else:
        from evals.methods import run_settings
        from graphs.pipeline import ask

        answer = ask(ctx.index(video), item.question, run_settings(ctx), ctx.llm, options=item.options)
        option, steps = answer.choice.option, answer.choice.steps
    return McqPrediction(id=item.id, method=method, option=option, steps=steps,
                         wall_s=round(time.perf_counter() - t0, 3))


def evaluate_mcq(items: list[McqItem], predictions: dict[str, McqPrediction], encoder=None) -> dict:
    """Accuracy (an item without a prediction, or whose prediction failed, counts as wrong), the items answered
    (``n_predicted``: predicted without an error) and, over items with a reference trace
    and a predicted one, the mean of Social Genome's trace metrics (``evals.metrics``); the semantic
    ones need ``encoder`` (a ``tools.perception.text.TextEncoder``)."""
    right, traces = [], {}
    for item in items:
        pred = predictions.get(item.id)
        right.append(float(pred is not None and pred.option == item.answer))
        if not (item.trace and pred and pred.steps):
            continue
        scores = trace_structure([(s.modality, s.external_knowledge) for s in pred.steps],
                                 [(s.modality, s.external_knowledge) for s in item.trace])
        overlap = emotion_word_overlap(" ".join(s.text for s in pred.steps), " ".join(s.text for s in item.trace))
        if overlap is not None:
            scores["emotion_overlap"] = overlap
        if encoder is not None:
            scores |= rationale_similarity([s.text for s in pred.steps], [s.text for s in item.trace], encoder)
        for k, v in scores.items():
            traces.setdefault(k, []).append(v)
    answered = [i for i in items if i.id in predictions and predictions[i.id].error is None]
    return {"n_items": len(items), "n_predicted": len(answered),  # a failed item (its error recorded) is no answer
            "accuracy": round(float(np.mean(right)), 4) if right else None,
            "trace": {k: round(float(np.mean(v)), 4) for k, v in sorted(traces.items())},
            "n_traces_scored": len(next(iter(traces.values()), [])),
            "per_item": [{"id": i.id, "answer": i.answer,
                          "predicted": predictions[i.id].option if i.id in predictions else None} for i in items]}


def _write(items: list[McqItem], predictions: dict[str, McqPrediction], metrics: dict, out: Path) -> str:
    """The results table of a multiple-choice run (accuracy and the trace metrics)."""
    trace = metrics["trace"]
    return "\n".join(["| metric | value |", "|---|---|", f"| accuracy | {metrics['accuracy']} |",
                      f"| traces scored | {metrics['n_traces_scored']} |",
                      *[f"| {k} | {v} |" for k, v in trace.items()]])


register_format(BenchFormat(
    name="mcq", help="multiple-choice questions with options and an optional reference trace",
    default_labels="AffectNet-8", load=lambda args, labels: load_mcq(args.bench), predict=predict_mcq,
    failed=lambda method, item, error: McqPrediction(id=item.id, method=method, option=None, wall_s=0.0, error=error),
    prediction=McqPrediction, score=lambda items, done, encoder, labels: evaluate_mcq(items, done, encoder),
    write=_write, summary=lambda method, m: f"{method}: accuracy={m['accuracy']} ({m['n_items']} questions)",
    methods=MCQ_METHODS))
