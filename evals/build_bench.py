"""Build long-video VQAU items from emotion-labelled short clips.

    python -m evals.build_bench CLIPS_DIR --out bench_dir [--format ravdess|cremad|javanese|csv] [--csv labels.csv]
                                [--clips-per-video 10] [--seed 0] [--by-person]

Clips are shuffled (seeded), grouped (``--by-person``: one person's clips to a video), and concatenated into long
videos (decoded and re-encoded with
PyAV, FFmpeg's libraries: H.264 video at a common size and 25 fps, AAC 16 kHz mono audio; silence where
a clip has none). Each long video gets one item per emotion it contains, with a vague query drawn from
that emotion's templates and every moment of that emotion at its known offset. Writes
``bench_dir/videos/long_NNN.mp4`` and ``bench_dir/bench.jsonl`` (paths relative to it).

Label readers:
- RAVDESS file names ``MM-VV-EE-II-SS-RR-AA.mp4`` (modality, vocal channel, emotion, intensity,
  statement, repetition, actor; Livingstone & Russo, 2018). Emotions 01 neutral, 02 calm (-> neutral),
  03 happy, 04 sad, 05 angry, 06 fearful, 07 disgust, 08 surprised; audio-only files (modality 03) skipped.
- CREMA-D file names ``ActorID_Sentence_Emotion_Level`` (Cao et al., 2014): ANG, DIS, FEA, HAP, NEU, SAD.
- The Javanese acted-emotion clips' names ``AA-BB-CC_RR`` (person, sentence, emotion code, take;
  ``evals.data.javanese``).
- CSV ``file,emotion[,start_s,end_s]`` (header optional; start/end mark the emotional span inside the
  clip, default the whole clip). MELD's CSVs map onto it: ``file`` = ``dia{Dialogue_ID}_utt{Utterance_ID}.mp4``,
  ``emotion`` = ``Emotion``, ``start_s``/``end_s`` empty; a CSV with those MELD columns is read directly.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evals.bench import open_bench_folder, write_bench_file
from evals.data.reserved import without_reserved
from tools.core.argtypes import CommandParser, number
from tools.core.frames import iter_frames
from tools.core.media import VideoError, load_audio, probe
from tools.core.video_out import VideoWriter

VIDEO_EXTS = {".mp4", ".avi", ".mov", ".mkv", ".flv", ".webm", ".m4v"}

#: Label spellings of the common datasets -> AffectNet-8.
LABELS = {
    "neutral": "neutral", "neu": "neutral", "calm": "neutral", "happiness": "happiness", "happy": "happiness",
    "hap": "happiness", "joy": "happiness", "sadness": "sadness", "sad": "sadness", "surprise": "surprise",
    "surprised": "surprise", "fear": "fear", "fearful": "fear", "fea": "fear", "disgust": "disgust",
    "disgusted": "disgust", "dis": "disgust", "anger": "anger", "angry": "anger", "ang": "anger",
    "contempt": "contempt",
}
RAVDESS_EMOTIONS = {"01": "neutral", "02": "neutral", "03": "happiness", "04": "sadness", "05": "anger",
                    "06": "fear", "07": "disgust", "08": "surprise"}

#: Vague query templates per emotion (VQAU-style: the emotion is implied, not named as a label).
TEMPLATES = {
    "neutral": ["when is someone calm and composed?", "when does a person stay matter-of-fact?"],
    "happiness": ["when does someone seem to enjoy themselves?", "when is somebody in a good mood?"],
    "sadness": ["when does someone feel down?", "when does somebody seem hurt?"],
    "surprise": ["when is someone caught off guard?", "when does something take a person by surprise?"],
    "fear": ["when does someone seem uneasy?", "when is somebody scared?"],
    "disgust": ["when does something put someone off?", "when does somebody find something gross?"],
    "anger": ["when does someone get upset?", "when does a person lose their temper?"],
    "contempt": ["when does someone look down on another?", "when is somebody dismissive?"],
}


@dataclass(frozen=True)
class LabelledClip:
    """A short clip with its emotion, the emotional span inside it (seconds; None = whole clip) and the person in it
    (None when the labels do not say)."""

    path: Path
    emotion: str
    start_s: float | None = None
    end_s: float | None = None
    person: str | None = None


def normalise_label(raw: str) -> str:
    """Map a dataset's emotion spelling onto AffectNet-8.

    Raises:
        ValueError: unknown label.
    """
    key = raw.strip().lower()
    if key not in LABELS:
        raise ValueError(f"unknown emotion label {raw!r}")
    return LABELS[key]


def read_ravdess(folder: Path) -> list[LabelledClip]:
    """Clips under ``folder`` named by the RAVDESS convention (audio-only files skipped)."""
    out = []
    for p in sorted(folder.rglob("*")):
        parts = p.stem.split("-")
        if p.suffix.lower() in VIDEO_EXTS and len(parts) == 7 and parts[0] in ("01", "02") \
                and parts[2] in RAVDESS_EMOTIONS:
            out.append(LabelledClip(p, RAVDESS_EMOTIONS[parts[2]], person=parts[6]))
    return out


def read_cremad(folder: Path) -> list[LabelledClip]:
    """Clips under ``folder`` named by the CREMA-D convention."""
    out = []
    for p in sorted(folder.rglob("*")):
        parts = p.stem.split("_")
        if p.suffix.lower() in VIDEO_EXTS and len(parts) == 4 and parts[2].lower() in LABELS:
            out.append(LabelledClip(p, normalise_label(parts[2]), person=parts[0]))
    return out


def read_javanese(folder: Path) -> list[LabelledClip]:
    """Clips under ``folder`` named as the Javanese acted-emotion set names them (``evals.data.javanese.parse``)."""
    from evals.data.javanese import parse

    return [LabelledClip(p, parsed[2], person=parsed[0]) for p in sorted(folder.rglob("*.mp4"))
            if (parsed := parse(p.name))]


def read_csv(folder: Path, csv_path: Path) -> list[LabelledClip]:
    """Rows ``file,emotion[,start_s,end_s]`` (or MELD columns), files relative to ``folder``.

    Raises:
        ValueError: a row names a missing file or an unknown label (the message gives the line).
    """
    out = []
    with csv_path.open(newline="") as f:
        rows = list(csv.reader(f))
    header = [h.strip() for h in rows[0]] if rows else []
    meld = {"Dialogue_ID", "Utterance_ID", "Emotion"} <= set(header)
    start = 1 if meld or (header and header[0].lower() in ("file", "path", "filename")) else 0
    for n, row in enumerate(rows[start:], start + 1):
        if not row or not "".join(row).strip():
            continue
        if meld:
            r = dict(zip(header, row, strict=False))
            name, label, s, e = f"dia{r['Dialogue_ID']}_utt{r['Utterance_ID']}.mp4", r["Emotion"], "", ""
        else:
            name, label, s, e = (row + ["", ""])[:4]
        path = folder / name.strip()
        if not path.is_file():
            raise ValueError(f"{csv_path}:{n}: no such clip {path}")
        try:
            emotion = normalise_label(label)
            start, end = (float(s) if s.strip() else None), (float(e) if e.strip() else None)
        except ValueError as exc:  # an unknown label, or times that are not seconds
            raise ValueError(f"{csv_path}:{n}: {exc}") from exc
        if (start is not None and start < 0) or (start is not None and end is not None and end <= start):
            raise ValueError(f"{csv_path}:{n}: the labelled span {s.strip()}-{e.strip()} s is empty or negative")
        out.append(LabelledClip(path, emotion, start, end))
    return out


def letterbox(rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Scale an RGB frame (H, W, 3) to fit ``size`` (width, height) keeping its aspect, padded with black."""
    import cv2

    h, w = rgb.shape[:2]
    scale = min(size[0] / w, size[1] / h)
    nw, nh = max(2, int(w * scale)), max(2, int(h * scale))
    canvas = np.zeros((size[1], size[0], 3), np.uint8)
    x0, y0 = (size[0] - nw) // 2, (size[1] - nh) // 2
    canvas[y0 : y0 + nh, x0 : x0 + nw] = cv2.resize(rgb, (nw, nh), interpolation=cv2.INTER_AREA)
    return canvas


def concatenate(clips: list[Path], out_path: Path, size: tuple[int, int], fps: int = 25,
                sample_rate: int = 16_000) -> list[tuple[float, float]]:
    """Re-encode ``clips`` back to back into ``out_path``; returns each clip's (start_s, end_s) in it.

    Every clip is resampled to ``fps`` and letterboxed into ``size`` (width, height): a frame stands for every output
    frame time it covers (``frame_slots``; the last frame of a clip slower than ``fps`` until the clip ends), so a
    24 fps film or a 10 fps web video keeps its length, its frames held, instead of playing faster; its audio is
    resampled to mono ``sample_rate`` Hz and padded or cut to the clip's video length.
    """
    spans, t0 = [], 0.0
    with VideoWriter(out_path, size, fps, sample_rate) as out:
        for clip in clips:
            info = probe(clip)
            first = out.frames
            frame, t = None, 0.0
            for t, rgb in iter_frames(clip, fps, max_side=max(size) * 4):
                frame = letterbox(rgb, size)
                for _ in range(max(1, frame_slots(t, info.fps, fps) - (out.frames - first))):
                    out.add_frame(frame)
            if frame is not None and 0 < info.fps < fps:  # a slower clip's last frame is shown until it ends
                for _ in range(int(np.ceil((t + 1 / info.fps) * fps - 1e-6)) - (out.frames - first)):
                    out.add_frame(frame)
            dur = (out.frames - first) / fps
            audio = load_audio(clip, sample_rate) if info.has_audio else np.zeros(0, np.float32)
            want = round(dur * sample_rate)
            out.add_audio(np.pad(audio[:want], (0, max(0, want - len(audio)))).astype(np.float32))
            spans.append((round(t0, 3), round(t0 + dur, 3)))
            t0 += dur
    return spans


def frame_slots(t: float, source_fps: float, fps: float) -> int:
    """How many output frame times (0, 1/fps, 2/fps, ... seconds) a source frame shown at ``t`` seconds has reached:
    those up to half a source frame after it, the frames ``tools.core.frames.iter_frames`` lets it stand for."""
    return int(np.floor((t + 0.5 / source_fps) * fps + 1e-6)) + 1 if source_fps > 0 else 0


def groups(clips: list[LabelledClip], per_video: int, rng: random.Random, by_person: bool = False
           ) -> list[list[LabelledClip]]:
    """The clips of each video, ``per_video`` at most: all clips shuffled; ``by_person``: each person's clips
    shuffled and grouped apart (persons in sorted order), so a video shows one person in varied moods, as a speaker
    heard over a whole video is.

    Raises:
        ValueError: ``by_person`` and a clip's person is unknown.
    """
    if not by_person:
        order = clips[:]
        rng.shuffle(order)
        return [order[i : i + per_video] for i in range(0, len(order), per_video)]
    if any(c.person is None for c in clips):
        raise ValueError("--by-person: these labels do not name the person of every clip")
    out = []
    for person in sorted({c.person for c in clips}):
        order = [c for c in clips if c.person == person]
        rng.shuffle(order)
        out += [order[i : i + per_video] for i in range(0, len(order), per_video)]
    return out


def build(clips: list[LabelledClip], out_dir: Path, per_video: int = 10, seed: int = 0,
          size: tuple[int, int] = (640, 360), by_person: bool = False) -> Path:
    """Write long videos and ``bench.jsonl`` under ``out_dir``; returns the bench file's path. ``by_person``: each
    video shows one person (``groups``). Reserved clips (``evals.data.reserved``) are left out, said on stderr.

    Raises:
        ValueError: every clip is reserved; a clip's labelled span starts past its end.
    """
    clips, left = without_reserved(clips, lambda c: c.path)
    if left:  # reserved for the project's evaluation on unseen video: never built into a bench
        print(f"left out {len(left)} reserved clip(s): {', '.join(sorted({w for _, w in left}))}", file=sys.stderr)
    if not clips:
        raise ValueError("every clip given is reserved for the project's evaluation (evals.data.reserved)")
    rng = random.Random(seed)
    open_bench_folder(out_dir)
    lines = []
    for v, group in enumerate(groups(clips, per_video, rng, by_person)):
        video = out_dir / "videos" / f"long_{v:03d}.mp4"
        spans = concatenate([c.path for c in group], video, size)
        by_emotion: dict[str, list[dict]] = {}
        for clip, (s, e) in zip(group, spans, strict=True):
            ms = s + clip.start_s if clip.start_s is not None else s
            me = min(e, s + clip.end_s) if clip.end_s is not None else e
            if me <= ms:
                raise ValueError(f"{clip.path}: its labelled span starts at {clip.start_s} s, past its end "
                                 f"({e - s:.2f} s)")
            by_emotion.setdefault(clip.emotion, []).append(
                {"start_s": round(ms, 3), "end_s": round(me, 3), "emotion": clip.emotion,
                 "rationale": None, "evidence_modalities": []})
        for emotion, moments in sorted(by_emotion.items()):
            lines.append({"id": f"long_{v:03d}-{emotion}", "video": f"videos/{video.name}",
                          "query": rng.choice(TEMPLATES[emotion]), "moments": moments})
    return write_bench_file(out_dir, lines)


def main(argv: list[str] | None = None) -> int:
    p = CommandParser(prog="python -m evals.build_bench", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("clips", type=Path, help="folder of labelled clips")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--format", choices=["ravdess", "cremad", "javanese", "csv"], default="csv")
    p.add_argument("--csv", type=Path, help="labels for --format csv (default CLIPS/labels.csv)")
    p.add_argument("--clips-per-video", type=number(1, 10_000, integer=True), default=10,
                   help="clips joined into each video (1 or more)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--by-person", action="store_true",
                   help="each video shows one person's clips (RAVDESS, CREMA-D and Javanese names say who)")
    args = p.parse_args(argv)
    try:
        if args.format == "ravdess":
            clips = read_ravdess(args.clips)
        elif args.format == "cremad":
            clips = read_cremad(args.clips)
        elif args.format == "javanese":
            clips = read_javanese(args.clips)
        else:
            clips = read_csv(args.clips, args.csv or args.clips / "labels.csv")
        if not clips:
            raise ValueError(f"no labelled clips found in {args.clips} for --format {args.format}")
        bench = build(clips, args.out, args.clips_per_video, args.seed, by_person=args.by_person)
    except (ValueError, VideoError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    items = [json.loads(line) for line in bench.read_text().splitlines()]  # a folder built before may hold more
    print(f"wrote {len(items)} items over {len({i['video'] for i in items})} videos to {bench}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
