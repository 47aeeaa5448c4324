"""A clip's face reading against its person's own baseline, on the recorded development clips.

    python -m studies.face_baseline --mirrors /work/.mirror [--readings R.json] [--json face_baseline_dev.json]
    python -m studies.face_baseline --mirrors /work/.mirror --readings R.json --tempered [--json OUT]

Issue 31 asks that a track's expression be read "relative to that person's own neutral baseline". The clips are
``studies.recorded_faces``'s four recorded development sets no reader was trained on (section 25's 20 web clips,
RAVDESS actor 05's 52 face crops, MAFW's 12 film clips, the Javanese development people's 120; 204 clips of 29
people), each read at 4 fps by the default reader (the largest face per frame, ``studies.recorded_faces.read_clip``),
a clip's reading the mean over its frames (``mean_pool``). ``--readings`` stores the readings (read when the file
exists, written when it does not).

Labels per clip (``label_of``): the top label of the mean as read; or of its departure from a baseline, the log of the
clip's mean minus the log of the mean over the baseline's clips (Baltrusaitis et al., 2015, subtract a person's
usual face; a ratio, so a label the person always shows a little is not named for that). Baselines, always the
person's other clips (the clip read is never in its own baseline), where a baseline holds at least ``MIN_CLIPS``
clips (else the clip keeps the reading as read): ``all``, every other clip (in these acted sets a person shows every
emotion alike, so this is the middle of their range, kinder than a long video's); ``neutral``, their neutral clips
only (what a mostly calm person's hour would give); ``neutral+one``, their neutral clips and one drawn clip of each
other emotion they show (seeded). No clip or person chooses anything: the variants were fixed before the read.

``--tempered`` (``tempered``; ``evals/RESULTS.md`` section 166) scores the departure tempered by an exponent alpha in
``ALPHAS``: each frame's reading divided by the baseline to the power alpha, renormalised
(``tools.signals.timeline.departure_reading``, what the emotion reasoner names a face by, there with alpha
``BASELINE_EXPONENT``), a clip's label the top of the mean over its frames. With alpha below 1 a clip that reads
like its person's baseline keeps the baseline's top label (its reading is the baseline to the power 1 - alpha),
where the plain ratio (alpha 1) leaves all labels level. Two baselines: ``all`` as above (the mean over the person's
other clips), and ``frames``, the per-label median over every frame of all the person's clips, the clip's own
included (``tools.signals.timeline.median_distribution``, as the index's timelines compute a person's usual look),
where the person has at least ``MIN_CLIPS`` clips.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from studies.recorded_faces import (
    CLIPS,
    _extract,
    mafw_rows,
    mean_pool,
    mirrors_main,
    named_right,
    ravdess05_rows,
    read_clip,
    score_clips,
)
from tools.core.schema import AFFECTNET8
from tools.signals.timeline import departure_reading, median_distribution

#: Clips a baseline needs (else the clip keeps the reading as read; ``score_set``).
MIN_CLIPS = 4
BASELINES = ("all", "neutral", "neutral+one")
#: Added to each probability before the log (a label read at 0 on every frame).
EPS = 1e-4
#: The exponents of ``--tempered`` (``departure_reading``): at 1 each frame's plain ratio to the baseline, where
#: ``label_of`` takes the ratio of the clip's mean.
ALPHAS = (0.25, 0.5, 0.75, 1.0)
#: The baselines of ``--tempered`` (``tempered``).
TEMPERED_BASELINES = ("all", "frames")


def baseline_clips(rows: list[tuple[str, str, str, str]], i: int, kind: str, rng: np.random.Generator) -> list[int]:
    """The clips (indices into ``rows``: source, path, label, person) that make clip ``i``'s baseline of ``kind``
    (``BASELINES``, module doc): the same person's other clips, all of them, their neutral ones, or those and one
    drawn clip of each other label. Raises KeyError for another ``kind``."""
    who = rows[i][3]
    others = [j for j, r in enumerate(rows) if r[3] == who and j != i]
    neutral = [j for j in others if rows[j][2] == "neutral"]
    if kind == "all":
        return others
    if kind == "neutral":
        return neutral
    if kind == "neutral+one":
        labels = sorted({rows[j][2] for j in others} - {"neutral"})
        return neutral + [int(rng.choice([j for j in others if rows[j][2] == lab])) for lab in labels]
    raise KeyError(kind)


def label_of(mean: np.ndarray, baseline: np.ndarray | None) -> str:
    """The top AffectNet-8 label of a clip's mean reading ``mean`` (shape (8,)), or of its departure from
    ``baseline`` (the mean over the baseline's clips, shape (8,)): log(mean + EPS) - log(baseline + EPS)."""
    score = mean if baseline is None else np.log(mean + EPS) - np.log(baseline + EPS)
    return AFFECTNET8[int(np.argmax(score))]


def tempered_labels(rows: list[tuple[str, str, str, str]], readings: list[list[list[float]]], kind: str,
                    alpha: float) -> list[str | None]:
    """Each clip's label (None where no face was read) as the top of the mean over its frames of
    ``departure_reading`` against the baseline ``kind`` (``TEMPERED_BASELINES``, module doc) with ``alpha``; a clip
    whose person has no such baseline keeps the reading as read. Raises KeyError for another ``kind``."""
    if kind not in TEMPERED_BASELINES:
        raise KeyError(kind)
    means = [mean_pool(np.array(r)) if r else None for r in readings]
    clips_of: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        if readings[i]:
            clips_of.setdefault(r[3], []).append(i)
    pred: list[str | None] = []
    for i, m in enumerate(means):
        if m is None:
            pred.append(None)
            continue
        if kind == "frames":
            clips = clips_of[rows[i][3]]
            base = median_distribution(np.concatenate([np.array(readings[j]) for j in clips]))
        else:
            clips = [j for j in clips_of[rows[i][3]] if j != i]
            base = np.mean([means[j] for j in clips], axis=0) if clips else None
        if len(clips) < MIN_CLIPS or base is None:
            pred.append(AFFECTNET8[int(np.argmax(m))])
            continue
        pred.append(AFFECTNET8[int(np.argmax(mean_pool(departure_reading(np.array(readings[i]), base, alpha))))])
    return pred


def tempered(rows: list[tuple[str, str, str, str]], readings: list[list[list[float]]]) -> dict:
    """``--tempered``'s scores of one set: clips right (``score_clips``) and per label, for each baseline of
    ``TEMPERED_BASELINES`` and each alpha of ``ALPHAS``, keyed "kind alpha"."""
    out = {}
    for kind in TEMPERED_BASELINES:
        for alpha in ALPHAS:
            pred = tempered_labels(rows, readings, kind, alpha)
            result = score_clips(pred, rows)
            result["per_label"] = _per_label(pred, rows)
            out[f"{kind} {alpha}"] = result
    return out


def _per_label(pred: list[str | None], rows: list[tuple[str, str, str, str]]) -> dict[str, list[int]]:
    """Label -> [clips right, clips] over ``rows``."""
    return {lab: [sum(named_right(p, r[2]) for p, r in zip(pred, rows) if r[2] == lab), sum(r[2] == lab for r in rows)]
            for lab in dict.fromkeys(r[2] for r in rows)}


def score_set(rows: list[tuple[str, str, str, str]], readings: list[list[list[float]]], seed: int = 0) -> dict:
    """Each labelling of ``rows`` (clips of one set) from their frame readings: as read, and against each kind of
    baseline (``score_clips``: clips right, interval over people), with the clips per label right."""
    means = [mean_pool(np.array(r)) if r else None for r in readings]
    out = {}
    for kind in (None, *BASELINES):
        rng = np.random.default_rng(seed)
        pred: list[str | None] = []
        for i, m in enumerate(means):
            if m is None:
                pred.append(None)
                continue
            clips = [j for j in baseline_clips(rows, i, kind, rng) if means[j] is not None] if kind else []
            base = np.mean([means[j] for j in clips], axis=0) if len(clips) >= MIN_CLIPS else None
            pred.append(label_of(m, base))
        result = score_clips(pred, rows)
        result["per_label"] = _per_label(pred, rows)
        out[kind or "as read"] = result
    return out


def set_readings(mirrors: Path, readings_file: Path | None = None
                 ) -> tuple[dict[str, list[tuple[str, str, str, str]]], dict[str, list[list[list[float]]]]]:
    """(set name -> its clips' rows (source, path, label, person), set name -> each clip's frame readings (n_frames, 8;
    empty where no face was read)) of the four recorded development sets: read by the default reader at 4 fps
    (``read_clip``), or loaded from ``readings_file`` when it exists (and written there when it does not)."""
    from evals.data.javanese import rows as javanese_rows
    from tools.perception.engine import PerceptionConfig, load_engine

    sets = {"section 25": CLIPS, "RAVDESS actor 05": ravdess05_rows(), "MAFW": mafw_rows(),
            "Javanese development people": javanese_rows(mirrors, "dev")}
    if readings_file is not None and readings_file.exists():
        return sets, json.loads(readings_file.read_text())
    engine, readings = load_engine(PerceptionConfig()), {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, rows in sets.items():
            readings[name] = [read_clip(p, engine) for p in _extract(mirrors, Path(tmp), rows)]
    if readings_file is not None:
        readings_file.write_text(json.dumps(readings))
    return sets, readings


def evaluate(mirrors: Path, readings_file: Path | None = None, with_tempered: bool = False) -> dict:
    """Read (or load) the four sets' clips (``set_readings``) and score every labelling, per set and over all;
    ``with_tempered``: the tempered departures (``tempered``) in place of section 153's labellings."""
    sets, readings = set_readings(mirrors, readings_file)
    per_set = {name: ({"as read": score_set(rows, readings[name])["as read"], **tempered(rows, readings[name])}
                      if with_tempered else score_set(rows, readings[name])) for name, rows in sets.items()}
    total = {kind: sum(s[kind]["right"] for s in per_set.values()) for kind in per_set["MAFW"]}
    return {"clips": sum(len(r) for r in sets.values()), "min_clips": MIN_CLIPS, "right_over_all_sets": total,
            "sets": per_set}


def main(argv: list[str] | None = None) -> int:
    return mirrors_main(__doc__.splitlines()[0], evaluate, argv,
                        keep=(("--readings", "the clips' frame readings (JSON): read if it exists, else written"),),
                        switches=(("--tempered", "the tempered departures of section 166, not section 153's"),))


if __name__ == "__main__":
    raise SystemExit(main())
