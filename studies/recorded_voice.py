"""The face and the voice read together on recorded video: does Whisper's voice lift the clip's reading?

    python -m studies.recorded_voice --mirrors /work/.mirror --cremad CLIPS --readings GEO.npz --features VW.npz [--json OUT]

Every recorded development clip of ``studies.recorded_geometry`` (section 25's 20, RAVDESS actor 05's 52, MAFW's 12,
the Javanese development people's 120, CREMA-D's 100) is read twice: its face by the shipped reader (the mean of
the frame readings of ``recorded_geometry``'s ``--readings`` store, read at 4 fps), and its speech by two voice
heads: the shipped voice8 (``tools/models/VOICE8.md``) and whisper8, the head on Whisper tiny.en's encoder
(``tools/models/WHISPER8.md``), fitted by ``studies.train_whisper8`` on the voice corpora of
``studies.voice_whisper``'s ``--features`` store (RAVDESS dev actors, EMO-DB dev speakers, CREMA-D, the Javanese
development people) **less the corpus the clip comes from** (``--without``), so no clip is read by a head that
heard its speaker or was chosen on its corpus; a clip of none of them (section 25's) is read by the shipped head
(fitted without the Javanese). A clip's speech is its own sound track; RAVDESS actor 05's face crops have none, so their speech is
the audio-only file of the same performance (``03-...-05.wav`` for ``01-...-05_facecroppad.avi``). The FaceShot
clip of RAVDESS actor 19, a test actor of the voice sets, is not heard.

The late fusion is the emotion reasoner's (``agents.fusion.fuse``): ``(1 - w) * face + w * voice`` over
AffectNet-8, the face alone where no speech of half a second was found, for ``w`` in ``WEIGHTS``, at the weight of
the shipped fusion (``shipped_w``) and at the weight of the fusion fitted for voice8 (``PREVIOUS_W``). ``w`` is chosen
leaving one dataset
out among the sets whose faces the reader never saw and that have speech (``CHOOSE_ON``): each is read at the
``w`` that is best on the others; the ``w`` best on all of them set the shipped fusion's vocal weight. CREMA-D's faces are in the reader's training data (``tools/models/FACERES.md``:
99 of 100 read right), so its rows are reported apart and never choose.

A clip is right when the top label of its fused distribution is its label (a compound label when it names any);
95 % intervals by bootstrap over people (``evals.metrics.bootstrap_interval``), and the paired difference from the
face alone.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from tools.core.schema import AFFECTNET8

#: Weights of the voice against the face that are compared.
WEIGHTS = tuple(round(0.05 * i, 2) for i in range(13))
#: The weight of the voice relative to the face of the fusion fitted for voice8 (``agents/fusion.json`` before
#: whisper8: vocal 0.05 / (visual 0.75 + vocal 0.05)).
PREVIOUS_W = 0.0625
#: Sets that choose ``w`` (faces unseen by the reader, speech to hear).
CHOOSE_ON = ("javanese_dev", "ravdess05", "section25")
#: The voice corpus of ``studies.voice_whisper`` each recorded set's speakers belong to (left out of its head).
CORPUS = {"javanese_dev": "javanese_dev", "cremad": "cremad", "ravdess05": "ravdess"}
#: People whose voice is not read (a RAVDESS test actor).
NOT_HEARD = ("section25:ravdess-19",)


def ravdess_speech_name(face_crop: str) -> str:
    """The RAVDESS audio-only file of the performance a face-crop video shows: ``01-01-EE-II-SS-RR-AA_facecroppad.avi``
    (modality 01, audio-video) -> ``03-01-EE-II-SS-RR-AA.wav`` (modality 03, audio only; Livingstone & Russo, 2018:
    the seven fields name the modality, vocal channel, emotion, intensity, statement, repetition and actor).

    Raises:
        ValueError: not a RAVDESS audio-video face crop name.
    """
    stem = face_crop.removesuffix("_facecroppad.avi")
    fields = stem.split("-")
    if stem == face_crop or len(fields) != 7 or fields[0] != "01":
        raise ValueError(f"{face_crop}: not a RAVDESS audio-video face crop")
    return "-".join(["03", *fields[1:]]) + ".wav"


def speech_paths(mirrors: Path, cremad: Path, tmp: Path) -> tuple[list[Path | None], list[str]]:
    """Per recorded clip, in ``studies.recorded_geometry.clip_rows``'s order, the file its speech is read from
    (None for MAFW's silent GIFs) and its dataset."""
    from evals.data.assemble import default_root
    from studies.recorded_geometry import clip_rows

    paths, rows, sets = clip_rows(mirrors, cremad, tmp)
    ravdess = default_root() / "ravdess" / "Actor_05"
    out: list[Path | None] = []
    for p, (_, rel, _, _), s in zip(paths, rows, sets, strict=True):
        if s == "mafw":
            out.append(None)
        elif s == "ravdess05":
            out.append(ravdess / ravdess_speech_name(Path(rel).name))
        else:
            out.append(p)
    return out, sets


def hear(paths: list[Path | None]) -> dict[str, np.ndarray]:
    """voice8's (n, 252) and Whisper's (n, 768) features of each clip's speech (``studies.voice_whisper.
    speech_features``) and ``heard`` (n,) bool: whether it had the half second of speech voice8 needs (rows of the
    others, and of clips without a file, are zeros)."""
    from studies.voice_whisper import speech_features
    from tools.perception.voice_emotion import WhisperVoiceFeatures

    given = [i for i, p in enumerate(paths) if p is not None]
    read = speech_features([str(paths[i]) for i in given], WhisperVoiceFeatures())
    at = np.array(given, int)[read["kept"]]
    out = {"voice8": np.zeros((len(paths), 252), np.float32), "whisper": np.zeros((len(paths), 768), np.float32),
           "heard": np.zeros(len(paths), bool)}
    out["voice8"][at], out["whisper"][at], out["heard"][at] = read["voice8"], read["whisper"], True
    return out


def collect(mirrors: Path, cremad: Path, readings: Path | None, features: Path | None) -> dict:
    """The clips' face readings (``recorded_geometry.collect``, kept in ``readings``), speech features (``hear``)
    and the voice corpora (``voice_whisper.collect``, kept in ``features``)."""
    from studies import recorded_geometry, voice_whisper

    faces = recorded_geometry.collect(mirrors, cremad, readings)
    corpora = voice_whisper.collect(mirrors, cremad, features)
    with tempfile.TemporaryDirectory() as tmp:
        paths, sets = speech_paths(mirrors, cremad, Path(tmp))
        speech = hear(paths)
    if list(sets) != list(faces["dataset"]):
        raise ValueError("the readings store does not hold the clips of studies.recorded_geometry.clip_rows")
    speech["heard"] &= ~np.isin(faces["person"], NOT_HEARD)
    return {"faces": faces, "corpora": corpora, "speech": speech}


def shipped_w() -> float:
    """The shipped fusion's weight of whisper8's voice relative to the face: vocal / (visual + vocal) of
    ``agents/fusion.json`` for whisper8 (``Fusion.for_voice``)."""
    from agents.fusion import load_fusion

    fusion = load_fusion().for_voice("whisper8")
    return round(fusion.vocal / (fusion.visual + fusion.vocal), 4)


def _right(fused: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Whether each row's top label names the clip's label (``a+b`` compound labels: any of them)."""
    return np.array([AFFECTNET8[int(f.argmax())] in lab.split("+") for f, lab in zip(fused, labels, strict=True)])


def voice_readings(data: dict) -> dict[str, np.ndarray]:
    """AffectNet-8 distributions (n, 8) of each clip's speech by the shipped voice8 and by whisper8 as
    ``studies.train_whisper8`` fits it without the clip's own corpus (C chosen on the other corpora), or as shipped
    (without the Javanese) for a clip of no corpus; rows of clips not heard are zeros."""
    from studies.train_whisper8 import SHIPPED_WITHOUT, train
    from tools.perception.heads import LinearHead
    from tools.perception.voice_emotion import load_voice_emotion

    sets, speech, corpora = data["faces"]["dataset"], data["speech"], data["corpora"]
    heard = speech["heard"]
    out = {"voice8": np.zeros((len(sets), 8)), "whisper8": np.zeros((len(sets), 8))}
    out["voice8"][heard] = load_voice_emotion("voice8").predict_features(speech["voice8"][heard])
    left_out = np.array([CORPUS.get(s, SHIPPED_WITHOUT) for s in sets])
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in sorted(set(left_out[heard])):
            at = heard & (left_out == corpus)
            head = Path(tmp) / f"without-{corpus}.npz"
            train(corpora, head, corpus)
            out["whisper8"][at] = LinearHead.load(head).probs(speech["whisper"][at])
    return out


def evaluate(data: dict) -> dict:
    """Clips right per dataset for the face alone, each voice alone, and each fusion weight; ``w`` chosen leaving
    one of ``CHOOSE_ON`` out; intervals over people and paired differences from the face alone."""
    from evals.metrics import bootstrap_interval

    faces = data["faces"]
    sets, labels, person, heard = faces["dataset"], faces["label"], faces["person"], data["speech"]["heard"]
    n = len(labels)
    face = np.zeros((n, 8))
    for i in range(n):
        at = faces["clip"] == i
        if at.any():
            face[i] = faces["probs"][at].mean(0)
    voices = voice_readings(data)

    def fused(voice: str, w: float) -> np.ndarray:
        return np.where(heard[:, None], (1 - w) * face + w * voices[voice], face)

    right = {"face": _right(face, labels)}
    for voice in voices:
        right[f"{voice} alone"] = heard & _right(voices[voice], labels)
        for w in WEIGHTS[1:]:
            right[f"face+{voice} w={w}"] = _right(fused(voice, w), labels)
        right[f"face+{voice} w={PREVIOUS_W} (voice8's fusion)"] = _right(fused(voice, PREVIOUS_W), labels)
        right[f"face+{voice} w={shipped_w()} (shipped fusion)"] = _right(fused(voice, shipped_w()), labels)
    chosen: dict[str, dict] = {}
    for voice in voices:
        lodo = np.zeros(n, bool)
        for held in CHOOSE_ON:
            others = np.isin(sets, [s for s in CHOOSE_ON if s != held])
            w = max(WEIGHTS, key=lambda w: (_right(fused(voice, w), labels) & others).sum())
            lodo[sets == held] = _right(fused(voice, w), labels)[sets == held]
            chosen.setdefault(voice, {})[held] = w
        all_w = max(WEIGHTS, key=lambda w: (_right(fused(voice, w), labels) & np.isin(sets, CHOOSE_ON)).sum())
        chosen[voice]["all"] = all_w
        right[f"face+{voice}, w chosen on the other sets"] = np.where(np.isin(sets, CHOOSE_ON), lodo, False)

    def summary(at: np.ndarray) -> dict:
        rows = {}
        for k, r in right.items():
            if k.endswith("on the other sets") and not np.isin(sets[at], CHOOSE_ON).all():
                continue
            row = {"right": int(r[at].sum()), "ci95": [round(v, 3) for v in bootstrap_interval(r[at], person[at])]}
            if k != "face":
                row["minus_face_ci95"] = [round(v, 3) for v in bootstrap_interval(
                    r[at].astype(float) - right["face"][at], person[at])]
            rows[k] = row
        return {"n": int(at.sum()), "heard": int(heard[at].sum()), "people": len(set(person[at])), **rows}

    out = {"weights": list(WEIGHTS), "shipped_w": shipped_w(), "previous_w": PREVIOUS_W, "chosen_w": chosen, "sets": {}}
    for s in dict.fromkeys(sets):
        out["sets"][s] = summary(sets == s)
    out["choose_on"] = summary(np.isin(sets, CHOOSE_ON))
    out["per_label_choose_on"] = {
        lab: {k: f"{int(right[k][np.isin(sets, CHOOSE_ON) & (labels == lab)].sum())}/"
                 f"{int((np.isin(sets, CHOOSE_ON) & (labels == lab)).sum())}"
              for k in ("face", f"face+whisper8 w={shipped_w()} (shipped fusion)", "face+whisper8, w chosen on the other sets",
                        f"face+voice8 w={PREVIOUS_W} (voice8's fusion)", "face+voice8, w chosen on the other sets")}
        for lab in AFFECTNET8 if (np.isin(sets, CHOOSE_ON) & (labels == lab)).any()}
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.recorded_faces import mirrors_main

    return mirrors_main(__doc__.splitlines()[0], lambda m, c, r, f: evaluate(collect(m, c, r, f)), argv, cremad=True,
                        keep=(("--readings", "studies.recorded_geometry's readings (npz; kept here)"),
                              ("--features", "studies.voice_whisper's features (npz; kept here)")))


if __name__ == "__main__":
    sys.exit(main())
