"""Composed benches: labelled faces shown as still shots over labelled speech, split by person.

    python -m evals.composed --split dev|test|fusion --form joined|long --out DIR [--videos N] [--seed 0]
        [--minutes 5] [--needles 4]

These videos are **composed, not recorded**: no emotion-labelled face video with voice is reachable
here (``../shared/DATA.md``), so each shot shows one labelled face image (``evals.data.assemble``) for
the length of one labelled RAVDESS speech clip of the same AffectNet-8 emotion, letterboxed into
640x360 and encoded with PyAV (H.264 25 fps, AAC 16 kHz mono). Face and voice come from different
people of the same split. ``--faces ckplus`` (the default, every bench before section 99 of ``evals/RESULTS.md``):
emotional faces are CK+ (posed, frontal, grey 48x48, with contempt) and neutral faces RAF-DB (colour web faces; CK+48
has no neutral), so a face's dataset tells its class. ``--faces mixed`` draws each shot's face from one of the
datasets that hold its emotion, the dataset first (each alike), then the image: CK+, RAF-DB and FER2013 (grey 48x48
web faces) for the six emotions, RAF-DB and FER2013 for neutral, CK+ alone for contempt; grey and colour, posed and
web faces then show in every class but contempt. RAVDESS has no contempt, so contempt shots carry neutral speech.
``--ferplus-agreed`` draws a FER2013 face only where the majority of FER+'s ten taggers gives its FER2013 label
(``evals.data.ferplus.agreed_paths``): about one FER2013 neutral face in five is otherwise a smiling or sad "neutral"
shot in a needle haystack (``evals/RESULTS.md`` section 161).

- ``joined``: ~30-40 s videos of 8 shots, one per AffectNet-8 emotion in random order; one item per
  emotion (the short joined form).
- ``long``: videos of about ``--minutes`` (default 5; ``SHOTS_PER_5_MIN`` shots per 5 minutes, each as long as its
  RAVDESS statement, so the length follows the statements drawn) of neutral shots with ``--needles`` (default 4)
  emotional needles at random places (a needle-in-a-haystack affect test), their emotions drawn in turn from
  shuffled rounds of the seven emotional labels (so 12 needles show five emotions twice); one item per needle
  emotion, whose moments are all that emotion's needles.

Queries are vague (the emotion implied, not named): the dev split draws them from
``evals.build_bench.TEMPLATES`` and the test split from ``TEST_TEMPLATES``, wording written before any
tuning and never used in development, so the offline intent interpreter is measured on phrasings it
was not adjusted to. ``--wording questions`` draws them instead from the split's half of the labelled
questions of ``studies.intent`` (six phrasings per emotion), over the same videos, asked without the words that
name a gender (``ungendered``: no face set labels it, and the pipeline reads "she" as the faces that look like a
woman; ``--as-written`` keeps them). Writes ``DIR/videos/*.mp4`` and ``DIR/bench.jsonl`` in the bench format of
``evals/README.md``.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
from pathlib import Path

import numpy as np

from evals.bench import open_bench_folder, write_bench_file
from evals.build_bench import TEMPLATES, letterbox
from evals.data.assemble import default_root, in_fusion_fold, load_manifest
from evals.data.ferplus import agreed_paths
from evals.questions import split as question_split
from tools.core.argtypes import CommandParser, number
from tools.core.media import load_audio
from tools.core.schema import AFFECTNET8
from tools.core.video_out import VideoWriter

SIZE, FPS, RATE = (640, 360), 25, 16_000
EMOTIONAL = [e for e in AFFECTNET8 if e != "neutral"]
#: Held-out query wording of the test split (not used in development or tuning).
TEST_TEMPLATES = {
    "neutral": ["when does someone keep a straight face?", "when is a person just going about things, unbothered?"],
    "happiness": ["when is somebody beaming?", "when does someone light up?"],
    "sadness": ["when does somebody look heartbroken?", "when does someone seem low?"],
    "surprise": ["when does something catch someone unawares?", "when is a person stunned?"],
    "fear": ["when does someone seem frightened?", "when is somebody on edge?"],
    "disgust": ["when does someone look sickened?", "when does something turn someone's stomach?"],
    "anger": ["when is somebody furious?", "when does someone seem fed up and hostile?"],
    "contempt": ["when does someone sneer at another?", "when does somebody look down their nose at something?"],
}


def write_shots(shots: list[tuple[str, np.ndarray]], out_path: Path) -> list[tuple[float, float]]:
    """Encode shots (image path, mono 16 kHz audio) back to back; returns each shot's (start_s, end_s)."""
    import cv2

    spans = []
    with VideoWriter(out_path, SIZE, FPS, RATE, crf=20) as out:
        for image, audio in shots:
            rgb = letterbox(cv2.cvtColor(cv2.imread(image, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB), SIZE)
            k = shot_frames(len(audio))
            first = out.frames
            for _ in range(k):
                out.add_frame(rgb)
            want = round(k / FPS * RATE)
            out.add_audio(np.pad(audio[:want], (0, max(0, want - len(audio)))))
            spans.append((round(first / FPS, 3), round((first + k) / FPS, 3)))
    return spans


def shot_frames(samples: int) -> int:
    """Frames of a shot whose speech has ``samples`` samples at ``RATE`` Hz (``FPS`` frames per second, at least 1)."""
    return max(1, round(samples / RATE * FPS))


#: The face sets of each ``--faces`` choice: emotion -> the assembled sets a shot's face is drawn from.
FACE_SETS = {"ckplus": {e: ("rafdb",) if e == "neutral" else ("ckplus",) for e in AFFECTNET8},
             "mixed": {e: ("rafdb", "fer2013") if e == "neutral" else ("ckplus",) if e == "contempt"
                       else ("ckplus", "rafdb", "fer2013") for e in AFFECTNET8}}


def _pools(split: str, root: Path, faces_from: str = "ckplus", agreed: bool = False
           ) -> tuple[dict[str, list[list[str]]], dict[str, list[str]]]:
    """Face image paths per AffectNet-8 emotion, one list per set of ``FACE_SETS[faces_from]``, and speech paths per
    emotion, for ``split`` (``fusion``: the dev split's fusion fold, ``evals.data.assemble.in_fusion_fold``);
    ``agreed``: FER2013 faces only where FER+'s taggers agree with their label (``evals.data.ferplus.agreed_paths``).

    Raises:
        FileNotFoundError: a set it needs is not assembled, or (``agreed``) FER+'s votes were not matched to it.
        ValueError: a set holds no face of an emotion it should show in ``split``, or RAVDESS no speech of one, or
            ``agreed`` with face sets that hold no FER2013 face."""
    if agreed and not any("fer2013" in names for names in FACE_SETS[faces_from].values()):
        raise ValueError(f"--ferplus-agreed leaves out FER2013 faces, and --faces {faces_from} draws none")
    kept = agreed_paths(root) if agreed else None

    def records(name: str) -> list[dict]:
        recs = load_manifest(root, name, "dev" if split == "fusion" else split)
        recs = [r for r in recs if split != "fusion" or in_fusion_fold(name, r)]
        return [r for r in recs if kept is None or name != "fer2013" or r["path"] in kept]

    sets = FACE_SETS[faces_from]
    by_set = {name: records(name) for name in dict.fromkeys(n for names in sets.values() for n in names)}
    faces = {e: [[r["path"] for r in by_set[name] if r["label"] == e] for name in sets[e]] for e in AFFECTNET8}
    empty = [f"{name} {e}" for e in AFFECTNET8 for name, paths in zip(sets[e], faces[e], strict=True) if not paths]
    if empty:
        raise ValueError(f"no {split} faces of {', '.join(empty)} in the assembled data")
    voices: dict[str, list[str]] = {e: [] for e in AFFECTNET8}
    for r in records("ravdess"):
        voices[r["label"]].append(r["path"])
    voices["contempt"] = voices["neutral"]
    if silent := [e for e in AFFECTNET8 if not voices[e]]:
        raise ValueError(f"no {split} RAVDESS speech of {', '.join(silent)} in the assembled data")
    return faces, voices


def question_templates(split: str) -> dict[str, list[str]]:
    """The labelled questions of ``studies.intent`` (``evals/data/questions.jsonl``) of ``split`` (the fusion
    fold takes the dev half) as query wording: emotion -> its 6 questions."""
    pairs = question_split("test" if split == "test" else "dev")
    return {e: [question for question, emotion in pairs if emotion == e] for e in AFFECTNET8}


def query_templates(split: str, wording: str = "templates") -> dict[str, list[str]]:
    """The query wording of a split's benches, emotion -> phrasings: its two phrasings per emotion
    (``templates``: ``TEST_TEMPLATES`` for test, ``evals.build_bench.TEMPLATES`` otherwise) or its half of the
    labelled questions (``questions``: ``question_templates``, six per emotion)."""
    if wording == "questions":
        return question_templates(split)
    return TEST_TEMPLATES if split == "test" else TEMPLATES


#: Words of the labelled questions that name a person's gender, and what a composed bench asks instead
#: (``ungendered``); "her" is "their" before another word and "them" at the end of the question.
UNGENDERED = {"he": "someone", "she": "someone", "the man": "someone", "the woman": "someone", "him": "them",
              "himself": "themselves", "herself": "themselves", "his": "their", "hers": "theirs"}
_GENDERED = re.compile(r"\b(" + "|".join(sorted(UNGENDERED, key=len, reverse=True)) + r")\b|\bher\b(\s*[?.!]?\s*$)?",
                       re.IGNORECASE)


def ungendered(question: str) -> str:
    """``question`` without the words that name a gender ("when does she raise her voice in rage?" -> "when does
    someone raise their voice in rage?"; a question's first letter stays a capital). A composed shot shows a face from
    a set that labels no one's gender (CK+, RAF-DB, FER2013) over an actor's speech, and the pipeline reads "he" and
    "she" as the faces that look like a man or a woman (``agents.grounding``), so a gendered question would ask about a
    person the shot may not show: a development draw asked as written put the right shot first for 69 of 96 questions,
    asked ungendered for 80 (``evals/RESULTS.md`` section 150). Written for the labelled questions
    (``evals/data/questions.jsonl``, checked by ``tests/test_intent.py``): "her" before another word is read as a
    possessive ("what makes her angry?" would become "what makes their angry?")."""
    def swap(m: re.Match) -> str:
        if m.group(1):
            new = UNGENDERED[m.group(1).lower()]
        else:
            new = "them" + m.group(2) if m.group(2) is not None else "their"
        return new[0].upper() + new[1:] if m.start() == 0 and m.group(0)[0].isupper() else new

    return _GENDERED.sub(swap, question)


#: Shots of the long form per 5 minutes of video (a RAVDESS statement lasts about 3.7 s).
SHOTS_PER_5_MIN = 80


def _face_pool(pools: list[list[str]], rng: random.Random) -> list[str]:
    """One of an emotion's face sets, each alike (a single set costs no draw, so a seed's ``ckplus`` videos stay)."""
    return pools[0] if len(pools) == 1 else rng.choice(pools)


def needle_emotions(rng: random.Random, n: int) -> list[str]:
    """``n`` needle emotions: shuffled rounds of ``EMOTIONAL``, so no emotion repeats before all have come."""
    out: list[str] = []
    while len(out) < n:
        out += rng.sample(EMOTIONAL, len(EMOTIONAL))
    return out[:n]


def draw(split: str, form: str, videos: int, seed: int = 0, root: Path | None = None, minutes: float = 5.0,
         needles: int = 4, faces_from: str = "ckplus", agreed: bool = False) -> list[list[tuple[str, str, str]]]:
    """The shots ``build`` writes with these arguments, per video in order: (face image path, RAVDESS speech path,
    AffectNet-8 emotion), drawn as ``build`` draws them (a seed gives the same shots; ``studies.ferplus_benches``
    reads a draw's faces this way).

    Raises:
        FileNotFoundError: a face or speech set is not assembled.
        ValueError: more needles than the long form's shots can hold apart, or a face set lacks an emotion."""
    rng = random.Random(f"{split}-{form}-{seed}")
    faces, voices = _pools(split, root or default_root(), faces_from, agreed)
    out = []
    for _ in range(videos):
        if form == "joined":
            emotions = rng.sample(list(AFFECTNET8), len(AFFECTNET8))
        else:
            n_shots = math.ceil(SHOTS_PER_5_MIN * minutes / 5)
            if needles > n_shots - 4:
                raise ValueError(f"{needles} needles do not fit in {n_shots} shots")
            emotions = ["neutral"] * n_shots
            places = rng.sample(range(2, n_shots - 2), needles)
            picks = rng.sample(EMOTIONAL, 4) if needles == 4 else needle_emotions(rng, needles)
            for pos, emo in zip(places, picks, strict=True):
                emotions[pos] = emo
        out.append([(rng.choice(_face_pool(faces[e], rng)), rng.choice(voices[e]), e) for e in emotions])
    return out


def build(split: str, form: str, out_dir: Path, videos: int, seed: int = 0, root: Path | None = None,
          wording: str = "templates", minutes: float = 5.0, needles: int = 4, faces_from: str = "ckplus",
          as_written: bool = False, agreed: bool = False) -> Path:
    """Write ``videos`` composed videos (the shots of ``draw``) and their bench items; returns the bench file. The
    queries are drawn from ``query_templates(split, wording)`` and asked ``ungendered`` (the templates name no
    gender; ``as_written`` keeps the labelled questions' "he" and "she", as draws before ``evals/RESULTS.md`` section
    150 had them); the videos are the same whatever the wording. ``minutes`` and ``needles`` shape the long form (the
    defaults give the 5-minute form of earlier benches, shot for shot); ``faces_from`` names the face sets
    (``FACE_SETS``: with ``ckplus`` a seed gives the videos it always gave); ``agreed`` draws FER2013 faces only where
    FER+'s ten taggers agree with their label (``_pools``).

    Raises:
        FileNotFoundError: a face or speech set is not assembled.
        ValueError: more needles than the long form's shots can hold apart, or a face set lacks an emotion."""
    plan = draw(split, form, videos, seed, root, minutes, needles, faces_from, agreed)
    queries = random.Random(f"queries-{split}-{form}-{seed}")
    templates = query_templates(split, wording)
    ask = (lambda q: q) if as_written else ungendered
    open_bench_folder(out_dir)
    lines = []
    for v, shots in enumerate(plan):
        emotions = [e for _, _, e in shots]
        name = f"{form}_{split}_{v:03d}.mp4"
        spans = write_shots([(face, load_audio(speech, RATE)) for face, speech, _ in shots], out_dir / "videos" / name)
        for emo in dict.fromkeys(e for e in emotions if form == "joined" or e != "neutral"):
            moments = [{"start_s": s, "end_s": e, "emotion": emo, "rationale": None, "evidence_modalities": []}
                       for em, (s, e) in zip(emotions, spans, strict=True) if em == emo]
            lines.append({"id": f"{name[:-4]}-{emo}", "video": f"videos/{name}",
                          "query": ask(queries.choice(templates[emo])), "moments": moments})
    return write_bench_file(out_dir, lines)


def main(argv: list[str] | None = None) -> int:
    ap = CommandParser(prog="python -m evals.composed", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=["dev", "test", "fusion"], required=True,
                    help="people of the dev or test split; fusion: the dev split's fusion fold (people held out of "
                         "the heads trained with --without-fusion-fold, for studies.fit_fusion)")
    ap.add_argument("--form", choices=["joined", "long"], default="joined")
    count = number(1, 10_000, integer=True)
    ap.add_argument("--videos", type=count, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--wording", choices=["templates", "questions"], default="templates",
                    help="query wording: the split's two phrasings per emotion (default), or its half of the "
                         "labelled questions of evals/data/questions.jsonl (six per emotion; studies.intent), asked "
                         "without the words that name a gender (he, she -> someone), since no face set labels it")
    ap.add_argument("--as-written", action="store_true",
                    help="with --wording questions: keep their he and she, as draws before RESULTS section 150")
    ap.add_argument("--minutes", type=number(0, 600, lo_open=True), default=5.0,
                    help="long form: length of each video, about (min): it sets the count of shots, each as long as "
                         "its statement (about 3.7 s)")
    ap.add_argument("--needles", type=count, default=4, help="long form: emotional shots per video")
    ap.add_argument("--faces", choices=sorted(FACE_SETS), default="ckplus",
                    help="face sets: ckplus (emotions CK+, neutral RAF-DB; the benches so far) or mixed (each class "
                         "from CK+, RAF-DB and FER2013 where they hold it, so a face's look does not tell its class)")
    ap.add_argument("--ferplus-agreed", action="store_true",
                    help="draw FER2013 faces only where the majority of FER+'s ten taggers gives their FER2013 label "
                         "(needs <data>/ferplus.npz from python -m evals.data.ferplus); without it a seed gives the "
                         "videos it always gave")
    ap.add_argument("--data", type=Path, default=None, help="assembled data root (default <cache>/data)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.as_written and args.wording != "questions":
        ap.error("--as-written keeps the he and she of the labelled questions: it needs --wording questions")
    try:
        bench = build(args.split, args.form, args.out, args.videos, args.seed, args.data, args.wording,
                      args.minutes, args.needles, args.faces, args.as_written, args.ferplus_agreed)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {sum(1 for _ in bench.open())} items over {args.videos} videos to {bench}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
