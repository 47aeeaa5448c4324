"""A head that reads which feeling a written phrase names, trained on GoEmotions' labelled Reddit comments, and
its trial beside the offline intent interpreter's reading of the asked emotion (tried, not shipped).

    python -m studies.train_feel [--data ROOT] [--out HEAD.npz] [--json report.json]

Data: GoEmotions (Demszky et al., 2020, ACL; ``evals.data.assemble --source goemotions=DIR``, DIR a clone of
monologg/GoEmotions-pytorch): 58k English Reddit comments, each labelled by raters with 27 emotions or neutral,
grouped by its authors into Ekman's six and neutral; the comments that carry one group (49,469). Seven classes
(no contempt). Features: the shipped sentence encoder's vectors (all-MiniLM-L6-v2, 384-d), cached under
``<data>/crops/goemotions_text.npz``. The set's own split (comment authors are not given, so no person split):
C is chosen from ``studies.train_text.C_GRID`` by macro-F1 on the dev split after fitting on train, the head
is refitted on train + dev, then scored once on the test split (4,968 comments) beside the majority class and
the similarity scorer the intent interpreter used alone before (``TextEmotion.lexicon_distribution``).

The trial (``trial``): each emotion's score of a development question (``agents.emotion_scores.emotion_scores``) gets
``w`` times the head's probability of that emotion for the question's emotion phrase (``w`` in ``WEIGHTS``;
"centred": less 1/7, so a phrase the head finds uniform keeps its scores; contempt, which the head lacks, gets
nothing), then ``agents.intent.chosen_emotions`` picks the targets. Development questions: the 96 labelled ones
(``evals.questions.split``, both halves), the composed benches' 32 phrasings, the first held-out file's 48 idioms
and 16 memory-form questions, and the four idioms of issue 31; and 16 questions that name no feeling, where the
targets should stay empty. The same is done with the words8 head (MELD's sitcom utterances), tried this way
before (``evals/RESULTS.md`` section 27). The second held-out file is not read: nothing was kept to measure.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root
from studies.command import report
from studies.heads import cached_set_features, save_head
from studies.train_text import C_GRID, fit_head, scores
from tools.core.schema import AFFECTNET8
from tools.perception.heads import LinearHead
from tools.perception.text_emotion import WORDS8_HEAD, load_text_emotion

#: Weights of the head's probabilities tried beside the similarity scores (cosine units).
WEIGHTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
#: Development questions that name no feeling (the interpreter should name no emotion for them).
NO_FEELING = ("when does he look at her?", "when does he point at someone?", "when does he talk about the weather?",
              "when does she leave the room?", "when does she mention being new?", "when does she turn around?",
              "when does someone ask about the schedule?", "when does someone give a thumbs up?",
              "when does someone talk about the software?", "when does she look at him?",
              "when does the man in the dark suit walk in?", "when is the dog on screen?",
              "when does he open the laptop?", "when do they shake hands?", "when does she read the report?",
              "when does the camera pan to the audience?")
#: Issue 31's idioms ("lose their cool" -> sadness, "light up" -> sadness and disgust, ...), as questions.
ISSUE_IDIOMS = (("when does he lose his cool?", "anger"), ("when does someone light up?", "happiness"),
                ("when does she blow up?", "anger"), ("when does someone's jaw drop?", "surprise"))


def goemotions_features(root: Path | None = None) -> dict[str, np.ndarray]:
    """``x`` (N, 384) all-MiniLM-L6-v2 vectors, ``y`` AffectNet-8 index, ``fold`` (train / val / test) and
    ``text`` of every single-group GoEmotions comment (cached)."""
    from tools.perception.text import load_transcript_encoder

    def compute(recs: list[dict]) -> dict[str, np.ndarray]:
        texts = [r["text"] for r in recs]
        return {"x": load_transcript_encoder("minilm").encode(texts).astype(np.float32),
                "y": np.asarray([AFFECTNET8.index(r["label"]) for r in recs]),
                "fold": np.asarray([r["fold"] for r in recs]), "text": np.asarray(texts)}

    return cached_set_features(root or default_root(), "goemotions", "goemotions_text", compute)


def train(out: Path, root: Path | None = None) -> dict:
    """Choose C on GoEmotions dev, refit on train + dev, write ``out``; returns the report with the test scores
    of the head, the majority class and the similarity scorer."""
    from sklearn.metrics import f1_score

    d = goemotions_features(root)
    tr, va, te = d["fold"] == "train", d["fold"] == "val", d["fold"] == "test"
    grid = []
    for c in C_GRID:
        pred = LinearHead(fit_head(d["x"][tr], d["y"][tr], c)).probs(d["x"][va]).argmax(1)
        grid.append({"C": c, "dev_macro_f1": round(float(f1_score(d["y"][va], pred, average="macro")), 4)})
        print(grid[-1], file=sys.stderr, flush=True)
    best = max(grid, key=lambda r: r["dev_macro_f1"])["C"]
    fit = tr | va
    save_head(out, fit_head(d["x"][fit], d["y"][fit], best))
    yt = d["y"][te]
    lexicon = load_text_emotion().lexicon_probs(d["x"][te])
    return {"data": "GoEmotions, Ekman groups, single-group comments (Demszky et al., 2020); fit on train + dev, "
                    "C chosen by macro-F1 on dev", "encoder": "minilm", "grid": grid, "C": best,
            "n_fit": int(fit.sum()), "n_test": int(te.sum()),
            "majority_class_accuracy": round(float((yt == np.bincount(d["y"][fit]).argmax()).mean()), 4),
            "feel7": scores(yt, LinearHead.load(out).probs(d["x"][te]).argmax(1)),
            "lexicon": scores(yt, lexicon.argmax(1))}


def dev_questions() -> dict[str, list[tuple[str, str]]]:
    """The trial's development question sets (module doc): name -> (question, AffectNet-8 label)."""
    from evals.questions import heldout, split
    from studies.intent import composed_wording

    return {"labelled": split("dev") + split("test"),
            "bench_phrasings": composed_wording("dev") + composed_wording("test"),
            "idioms": heldout(form="idiom"), "memory_form": heldout(form="memory"), "issue_idioms": list(ISSUE_IDIOMS)}


def trial(head: LinearHead) -> dict:
    """``rows``: top-1 right per development set and the no-feeling questions left without an emotion, for each
    weight of ``WEIGHTS`` and each way of adding ``head``'s probabilities (module doc); ``head_alone``: how many
    development questions not about contempt the head's most probable emotion names, and its reading of the
    issue's idioms."""
    from agents.emotion_scores import emotion_scores
    from agents.intent import chosen_emotions
    from tools.signals.lexicon import emotion_phrase

    text = load_text_emotion()
    sets = dev_questions()
    questions = sorted({q for qs in sets.values() for q, _ in qs} | set(NO_FEELING))
    base = {q: emotion_scores(q) for q in questions}
    probs = {q: head.probs(text.encoder.encode([emotion_phrase(q)]))[0] for q in questions}
    known = [i for i, k in enumerate(AFFECTNET8) if k != "contempt"]  # neither head was fitted on contempt
    rows = []
    for centred in (True, False):
        for w in WEIGHTS:
            def targets(q: str, w: float = w, centred: bool = centred) -> list[str]:
                scores = dict(base[q])
                for i in known:
                    scores[AFFECTNET8[i]] += w * (probs[q][i] - (1 / len(known) if centred else 0.0))
                return chosen_emotions(scores, q)

            right = {name: sum(bool(t := targets(q)) and t[0] == lab for q, lab in qs) for name, qs in sets.items()}
            rows.append({"weight": w, "centred": centred, **right, "all": sum(right.values()),
                         "no_feeling_kept_empty": sum(not targets(q) for q in NO_FEELING)})
            print(rows[-1], file=sys.stderr, flush=True)
    labelled = [(q, lab) for qs in sets.values() for q, lab in qs if lab != "contempt"]
    top = {q: AFFECTNET8[int(probs[q].argmax())] for q in questions}
    return {"rows": rows, "head_alone": {"n": len(labelled), "top1": sum(top[q] == lab for q, lab in labelled),
                                         "issue_idioms": {q: [top[q], round(float(probs[q].max()), 3)]
                                                          for q, _ in ISSUE_IDIOMS}}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.train_feel", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="assembled sets' root (default <cache>/data)")
    ap.add_argument("--out", type=Path, default=None, help="head file (default <data>/feel7_head.npz)")
    ap.add_argument("--json", type=Path, default=None, help="write the report here too")
    args = ap.parse_args(argv)
    out = args.out or (args.data or default_root()) / "feel7_head.npz"

    def run() -> dict:
        result = train(out, args.data)
        sizes = {name: len(qs) for name, qs in dev_questions().items()}
        return {**result, "dev_question_sets": {**sizes, "all": sum(sizes.values()), "no_feeling": len(NO_FEELING)},
                "trial_feel7": trial(LinearHead.load(out)), "trial_words8": trial(LinearHead.load(WORDS8_HEAD))}

    return report(run, args.json)


if __name__ == "__main__":
    sys.exit(main())
