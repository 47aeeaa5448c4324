"""Methods compared on a bench: the full agent graph and four baselines.

- ``graph``: the full agent (intent -> localize -> verify -> emotion -> rationale).
- ``clip_only``: retrieval of the query text over the clip index (CLIP when configured, else the
  offline descriptor embedder), no perception tools, no verification; emotion = the query's prior.
- ``reading``: the perception reading alone: the index's clips ranked by the mean probability of the asked
  emotion (the query's prior) over the faces the index read in them (1 fps), each named by its own mean
  reading's top label; no agent, no retrieval, no verification.
- ``uniform``: ``top_k`` clip windows spread evenly over the video; emotion = the query's prior.
- ``random``: ``top_k`` spans of 2-8 s at random places with random labels of the label set (seeded per item).

The emotion prior is the offline intent interpreter's first target emotion (text only), ``neutral``
when the query names none, named in the run's label set (``agents.taxonomy``) like the graph's answers.
"""

from __future__ import annotations

import random
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from agents.change_schema import MomentChange
from agents.schema import RationaleStep
from agents.taxonomy import DEFAULT, load_taxonomy
from indexing.build import open_index
from indexing.clips import clip_windows
from memory.index_config import IndexConfig
from memory.store import VideoIndex
from tools.core.media import probe

METHODS = ("graph", "clip_only", "reading", "uniform", "random")


class PredictedMoment(BaseModel):
    """A ranked predicted moment; rationale fields only for methods that write rationales."""

    start_s: float
    end_s: float
    emotion: str = Field(description="a label of the run's label set")
    score: float
    rationale: str | None = None
    steps: list[RationaleStep] = Field(default_factory=list)
    observed_evidence: list[str] = Field(default_factory=list, description="evidence ids whose refs resolve")
    change: MomentChange | None = Field(None, description="the change point and emotions before and after, for a "
                                        "question about a change (agents.change)")


class Prediction(BaseModel):
    """One bench item's predictions and its cost."""

    id: str
    method: str
    moments: list[PredictedMoment]
    wall_s: float
    tool_calls: int = 0
    frames: int = 0
    models: dict[str, str] = Field(default_factory=dict, description="models behind the predictions")
    error: str | None = None


@dataclass
class MethodContext:
    """Shared settings of a run."""

    llm: str = "offline"
    top_k: int = 5
    seed: int = 0
    cache_dir: str | None = None
    index_config: IndexConfig | None = None
    settings: dict | None = None
    _open: tuple = field(default=(), repr=False, compare=False)

    def index(self, video: str | Path) -> VideoIndex:
        """The index of ``video`` for this run's config, opened once while consecutive items ask about the
        same video (a bench lists a video's questions together); only the last video's index is kept."""
        if not self._open or self._open[0] != str(video):
            self._open = (str(video), open_index(video, self.index_config or IndexConfig(), self.cache_dir))
        return self._open[1]


def _labels(ctx: MethodContext) -> str:
    return (ctx.settings or {}).get("labels", DEFAULT)


def emotion_prior(query: str, labels: str = DEFAULT) -> str:
    """The offline intent interpreter's first target emotion for ``query`` (``neutral`` when it names
    none), named in the label set ``labels`` as the graph names its moments."""
    from agents.intent import offline_intent

    taxonomy = load_taxonomy(labels)
    intent = offline_intent({"query": query})
    asked, targets = taxonomy.asked_labels(query, intent.target_emotions)
    return taxonomy.label_for(targets[0] if targets else "neutral", asked)


def _graph(video: Path, query: str, ctx: MethodContext) -> tuple[list[PredictedMoment], int, int, dict]:
    from graphs.pipeline import ask
    from memory.cache import VideoCache

    a = ask(ctx.index(video), query, run_settings(ctx), ctx.llm)
    vdir = Path(a.index["dir"]).parent
    cache = VideoCache(vdir.parent, vdir.name)
    out = []
    for m in a.moments:
        observed = []
        for e in m.evidence:
            try:
                cache.resolve(e.ref)
                observed.append(e.id)
            except KeyError:
                pass
        out.append(PredictedMoment(start_s=m.start_s, end_s=m.end_s, emotion=m.emotion, score=m.confidence,
                                   rationale=m.rationale, steps=m.steps, observed_evidence=observed, change=m.change))
    calls = a.index["tool_calls"]
    frames = int(calls.get("face_expression_frames", 0))
    return out, int(sum(calls.values())), frames, a.models


def run_settings(ctx: MethodContext):
    """The graph's ``RunSettings`` for a run: ``top_k`` and the ablation settings of ``ctx``."""
    from agents.state import RunSettings

    return RunSettings(top_k=ctx.top_k, **(ctx.settings or {}))


def _clip_only(video: Path, query: str, ctx: MethodContext) -> tuple[list[PredictedMoment], int, int, dict]:
    from agents.localizer import search_clips

    index = ctx.index(video)
    scores = search_clips(index, [query], ctx.top_k)
    by_id = {c.id: c for c in index.clips}
    prior = emotion_prior(query, _labels(ctx))
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])[: ctx.top_k]
    return [PredictedMoment(start_s=by_id[i].start_s, end_s=by_id[i].end_s, emotion=prior, score=round(s, 4))
            for i, s in ranked], 1, 0, {"clip_embedder": index.manifest["models"]["clip_embedder"],
                                        "emotion_prior": "offline intent interpreter"}


def _reading(video: Path, query: str, ctx: MethodContext) -> tuple[list[PredictedMoment], int, int, dict]:
    from tools.core.schema import AFFECTNET8

    index = ctx.index(video)
    taxonomy = load_taxonomy(_labels(ctx))
    asked = emotion_prior(query)
    scored = []
    for clip in index.clips:
        faces = [f.expression for fr in index.faces if clip.start_s <= fr.t < clip.end_s for f in fr.faces]
        if faces:
            mean = {k: float(np.mean([f[k] for f in faces])) for k in AFFECTNET8}
            scored.append((mean[asked], clip, max(mean, key=mean.get)))
    scored.sort(key=lambda x: -x[0])
    return [PredictedMoment(start_s=c.start_s, end_s=c.end_s, emotion=taxonomy.label_for(top, []), score=round(p, 4))
            for p, c, top in scored[: ctx.top_k]], 0, 0, {"expression": index.manifest["models"].get("expression", "")}


def _uniform(video: Path, query: str, ctx: MethodContext) -> tuple[list[PredictedMoment], int, int, dict]:
    cfg = ctx.index_config or IndexConfig()
    windows = clip_windows(probe(video).duration_s, cfg.clip_len_s, cfg.clip_stride_s)
    picks = sorted({round(x) for x in np.linspace(0, len(windows) - 1, min(ctx.top_k, len(windows)))})
    prior = emotion_prior(query, _labels(ctx))
    return [PredictedMoment(start_s=windows[i][0], end_s=windows[i][1], emotion=prior, score=1.0 / (r + 1))
            for r, i in enumerate(picks)], 0, 0, {"emotion_prior": "offline intent interpreter"}


def _random(video: Path, query: str, ctx: MethodContext, item_id: str = "") -> tuple[list[PredictedMoment], int, int, dict]:
    duration = probe(video).duration_s
    rng = random.Random(ctx.seed * 1_000_003 + zlib.crc32(item_id.encode()))
    names = load_taxonomy(_labels(ctx)).names
    out = []
    for r in range(ctx.top_k):
        length = min(duration, rng.uniform(2.0, 8.0))
        start = rng.uniform(0.0, duration - length)
        out.append(PredictedMoment(start_s=round(start, 2), end_s=round(start + length, 2),
                                   emotion=rng.choice(names), score=1.0 / (r + 1)))
    return out, 0, 0, {}


def predict(method: str, item_id: str, video: Path, query: str, ctx: MethodContext) -> Prediction:
    """Run ``method`` on one item; returns its predictions and cost.

    Raises:
        ValueError: unknown method.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {METHODS}")
    t0 = time.perf_counter()
    if method == "random":
        moments, calls, frames, models = _random(video, query, ctx, item_id)
    else:
        moments, calls, frames, models = {"graph": _graph, "clip_only": _clip_only, "reading": _reading,
                                           "uniform": _uniform}[method](
            video, query, ctx)
    return Prediction(id=item_id, method=method, moments=moments, wall_s=round(time.perf_counter() - t0, 3),
                      tool_calls=calls, frames=frames, models=models)
