"""The source repositories of the labelled sets (``evals.data.assemble``; ``evals/data/SOURCES.md``): how
their files are read (``repository_files``: a work tree, or a bare git directory through ``git archive``) and,
for each set, its label map, the pattern of its file paths and the reader of its manifest records with
their person split (``set_records``; the splits are described in ``evals.data.assemble``'s module doc).
"""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
import zlib
from collections.abc import Iterator
from pathlib import Path

CKPLUS_LABELS = {"anger": "anger", "contempt": "contempt", "disgust": "disgust", "fear": "fear",
                 "happy": "happiness", "sadness": "sadness", "surprise": "surprise"}
RAFDB_LABELS = {"angry": "anger", "disgust": "disgust", "fear": "fear", "happy": "happiness",
                "neutral": "neutral", "sad": "sadness", "suprise": "surprise", "surprise": "surprise"}
#: RAVDESS emotion code -> (raw label, AffectNet-8); Livingstone & Russo (2018), PLoS ONE 13(5).
RAVDESS_LABELS = {"01": ("neutral", "neutral"), "02": ("calm", "neutral"), "03": ("happy", "happiness"),
                  "04": ("sad", "sadness"), "05": ("angry", "anger"), "06": ("fearful", "fear"),
                  "07": ("disgust", "disgust"), "08": ("surprised", "surprise")}
RAVDESS_TEST_ACTORS = range(19, 25)
#: RAVDESS statement code -> the sentence every actor speaks (Livingstone & Russo, 2018).
RAVDESS_TEXTS = {"01": "Kids are talking by the door", "02": "Dogs are sitting by the door"}
#: EMO-DB text code -> German sentence (Burkhardt et al., 2005, "A database of German emotional speech",
#: Interspeech; the ten sentences listed in the database's documentation).
EMODB_TEXTS = {
    "a01": "Der Lappen liegt auf dem Eisschrank.",
    "a02": "Das will sie am Mittwoch abgeben.",
    "a04": "Heute abend könnte ich es ihm sagen.",
    "a05": "Das schwarze Stück Papier befindet sich da oben neben dem Holzstück.",
    "a07": "In sieben Stunden wird es soweit sein.",
    "b01": "Was sind denn das für Tüten, die da unter dem Tisch stehen?",
    "b02": "Sie haben es gerade hochgetragen und jetzt gehen sie wieder runter.",
    "b03": "An den Wochenenden bin ich jetzt immer nach Hause gefahren und habe Agnes besucht.",
    "b09": "Ich will das eben wegbringen und dann mit Karl was trinken gehen.",
    "b10": "Die wird auf dem Platz sein, wo wir sie immer hinlegen.",
}
EMODB_LABELS = {"Angry": ("angry", "anger"), "Happy": ("happy", "happiness"), "Neutral": ("neutral", "neutral"),
                "Sad": ("sad", "sadness")}
EMODB_TEST_SPEAKERS = range(12, 17)

_CK = re.compile(r"(?:^|/)CK\+48/([a-z]+)/(S\d{3})_\d{3}_\d{8}\.png$")
_RAF = re.compile(r"(?:^|/)DATASET/(train|test)/([a-z]+)/([^/]+_aligned\.jpg)$")
#: FER2013 as RecepTahirGunlu/Duygu-Tanima holds it (Goodfellow et al., 2013, ICONIP, "Challenges in
#: representation learning"): ``{train,validation,test}/<emotion>/<Usage>_<n>.jpg``, 48x48 grey, in FER2013's
#: own Training / PublicTest / PrivateTest split; the repository's augmented disgust copies
#: (``<name>.jpg<k>.jpg``) do not match.
_FER = re.compile(r"(?:^|/)(train|validation|test)/(angry|disgust|fear|happy|neutral|sad|surprise)/((?:Training|PublicTest|PrivateTest)_\d+\.jpg)$")
_RAV = re.compile(r"(?:^|/)Actor_(\d\d)/(03-01-(\d\d)-\d\d-(\d\d)-\d\d-(\d\d)\.wav)$")
#: pyAudioAnalysis's speaker-labelled recordings (Giannakopoulos, 2015, PLoS ONE 10(12); Apache-2.0):
#: each ``.wav`` has a ``.segments`` file of ``start end speakerX`` rows.
_SPK = re.compile(r"(?:^|/)pyAudioAnalysis/data/(diarizationExample\d?)\.(wav|segments)$")
_MELD = re.compile(r"(?:^|/)data/MELD/(train|dev|test)_sent_emo\.csv$")
#: MELD's seven labels -> AffectNet-8 (joy is happiness; MELD has no contempt).
MELD_LABELS = {"neutral": "neutral", "joy": "happiness", "sadness": "sadness", "surprise": "surprise",
               "fear": "fear", "disgust": "disgust", "anger": "anger"}
#: GoEmotions in its authors' Ekman grouping (Demszky et al., 2020, ACL, "GoEmotions"; Apache-2.0), as
#: monologg/GoEmotions-pytorch holds it: ``data/ekman/{train,dev,test}.tsv`` rows ``text<TAB>ids<TAB>comment id``
#: with ids into ``GOEMOTIONS_EKMAN`` (several ids where raters chose several groups).
_GOEMO = re.compile(r"(?:^|/)data/ekman/(train|dev|test)\.tsv$")
#: The Ekman groups in the order of the files' ``labels.txt`` (read into AffectNet-8 by ``MELD_LABELS``: the same
#: seven names; joy is happiness; no contempt).
GOEMOTIONS_EKMAN = ("anger", "disgust", "fear", "joy", "neutral", "sadness", "surprise")
_UTK = re.compile(r"(?:^|/)crop_part1/((\d+)_([01])_(\d)_((\d{10})\d{7})\.jpg\.chip\.jpg)$")
#: UTKFace's race field (its dataset page): 0-4.
UTKFACE_RACES = ("White", "Black", "Asian", "Indian", "Others")
#: CREMA-D clips as the emotalkingface preprocessing stores them (``ActorID_Sentence_Emotion_Level.hdf5``: aligned
#: 128x128 face frames at 25 fps, BGR, and the speech at 8 kHz; Cao et al., 2014, IEEE Trans. Affective Computing).
#: Actor 1001 is reserved for the project's outside evaluation: the pattern never matches it, so it is never read.
_CREMAD = re.compile(r"(?:^|/)hdf5/((?!1001_)(\d{4})_[A-Z]{3}_(ANG|DIS|FEA|HAP|NEU|SAD)_(?:LO|MD|HI|XX)\.hdf5)$")
#: CREMA-D emotion code -> AffectNet-8.
CREMAD_LABELS = {"ANG": "anger", "DIS": "disgust", "FEA": "fear", "HAP": "happiness", "NEU": "neutral",
                 "SAD": "sadness"}
_EMO = re.compile(r"(?:^|/)dataset/(Angry|Happy|Neutral|Sad)/((\d\d)([ab]\d\d)[A-Z][a-z]\.wav)$")



def repository_files(source: Path, pattern: re.Pattern) -> Iterator[tuple[str, bytes]]:
    """(repository path, bytes) of every file under ``source`` whose path matches ``pattern``.

    ``source`` is a work tree or a bare git directory (then read at HEAD with ``git archive``).

    Raises:
        FileNotFoundError: ``source`` does not exist.
    """
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such directory")
    if (source / "HEAD").is_file() and (source / "objects").is_dir():  # a bare git directory
        names = subprocess.run(["git", "--git-dir", str(source), "ls-tree", "-r", "--name-only", "HEAD"],
                               check=True, capture_output=True, text=True).stdout.splitlines()
        wanted = [n for n in names if pattern.search(n)]
        # the 2 GiB of unrelated files in some of these repositories are skipped by naming what we want
        for i in range(0, len(wanted), 2000):
            tar = subprocess.run(["git", "--git-dir", str(source), "archive", "--format=tar", "HEAD", "--",
                                  *wanted[i:i + 2000]], check=True, capture_output=True).stdout
            with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
                for m in tf:
                    if m.isfile():
                        yield m.name, tf.extractfile(m).read()
        return
    for p in sorted(source.rglob("*")):
        rel = p.relative_to(source).as_posix()
        if p.is_file() and pattern.search(rel):
            yield rel, p.read_bytes()


def _ckplus(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """CK+48 images, split by subject (module doc of ``evals.data.assemble``)."""
    seen = set()
    for rel, data in repository_files(source, _CK):
        m = _CK.search(rel)
        fname = Path(rel).name
        if m.group(1) not in CKPLUS_LABELS or fname in seen:  # some repos hold CK+48 twice
            continue
        seen.add(fname)
        subject = m.group(2)
        yield f"{m.group(1)}/{fname}", data, {
            "label": CKPLUS_LABELS[m.group(1)], "raw_label": m.group(1), "person": subject,
            "split": "test" if int(subject[1:]) % 3 == 0 else "dev"}


def _rafdb(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """RAF-DB basic aligned images, in the set's own train (dev) / test split."""
    seen = set()
    for rel, data in repository_files(source, _RAF):
        m = _RAF.search(rel)
        key = (m.group(1), m.group(3))
        if m.group(2) not in RAFDB_LABELS or key in seen:
            continue
        seen.add(key)
        yield f"{m.group(1)}/{m.group(2)}/{m.group(3)}", data, {
            "label": RAFDB_LABELS[m.group(2)], "raw_label": m.group(2), "person": None,
            "split": "dev" if m.group(1) == "train" else "test"}


def _fer2013(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """FER2013 faces in the repository's split: train and validation are dev (``fold`` "train" / "val"),
    test is test. FER2013 has no person ids, so no person split is possible."""
    for rel, data in repository_files(source, _FER):
        m = _FER.search(rel)
        yield f"{m.group(1)}/{m.group(2)}/{m.group(3)}", data, {
            "label": RAFDB_LABELS[m.group(2)], "raw_label": m.group(2), "person": None,
            "split": "test" if m.group(1) == "test" else "dev", "fold": "val" if m.group(1) == "validation" else "train"}


def _ravdess(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """RAVDESS speech recordings with their sentence, split by actor (``RAVDESS_TEST_ACTORS``)."""
    for rel, data in repository_files(source, _RAV):
        m = _RAV.search(rel)
        actor, code = int(m.group(5)), m.group(3)
        raw, label = RAVDESS_LABELS[code]
        yield f"Actor_{actor:02d}/{m.group(2)}", data, {
            "label": label, "raw_label": raw, "person": f"A{actor:02d}",
            "split": "test" if actor in RAVDESS_TEST_ACTORS else "dev",
            "text": RAVDESS_TEXTS[m.group(4)], "language": "en"}


def _emodb(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """The EMO-DB subset's German recordings with their sentence, split by speaker (``EMODB_TEST_SPEAKERS``)."""
    for rel, data in repository_files(source, _EMO):
        m = _EMO.search(rel)
        if m.group(4) not in EMODB_TEXTS:
            continue
        raw, label = EMODB_LABELS[m.group(1)]
        speaker = int(m.group(3))
        yield f"{m.group(1)}/{m.group(2)}", data, {
            "label": label, "raw_label": raw, "person": f"S{speaker:02d}",
            "split": "test" if speaker in EMODB_TEST_SPEAKERS else "dev",
            "text": EMODB_TEXTS[m.group(4)], "language": "de"}


def _meld(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """MELD's utterances (one ``.txt`` file each), in the set's own split (train and dev are dev)."""
    import csv

    for rel, data in repository_files(source, _MELD):
        part = _MELD.search(rel).group(1)
        for row in csv.DictReader(io.StringIO(data.decode("utf-8"))):
            raw = row["Emotion"].strip()
            yield f"{part}/{row['Dialogue_ID']}_{row['Utterance_ID']}.txt", row["Utterance"].encode(), {
                "label": MELD_LABELS[raw], "raw_label": raw, "person": row["Speaker"],
                "split": "test" if part == "test" else "dev", "fold": {"dev": "val"}.get(part, part),
                "text": row["Utterance"], "language": "en"}


def _goemotions(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """GoEmotions' Reddit comments that carry one Ekman group (several groups: left out), in the set's own split
    (its authors are not given, so no person split: train and dev are dev, test is test)."""
    for rel, data in repository_files(source, _GOEMO):
        part = _GOEMO.search(rel).group(1)
        for line in data.decode("utf-8").splitlines():
            text, ids, comment = line.split("\t")
            if "," not in ids:
                raw = GOEMOTIONS_EKMAN[int(ids)]
                yield f"{part}/{comment}.txt", text.encode(), {
                    "label": MELD_LABELS[raw], "raw_label": raw, "person": None,
                    "split": "test" if part == "test" else "dev", "fold": {"dev": "val"}.get(part, part),
                    "text": text, "language": "en"}


def _utkface(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """UTKFace part 1 faces with annotated gender, age and race, split by collection hour."""
    for rel, data in repository_files(source, _UTK):
        m = _UTK.search(rel)
        group = m.group(6)
        yield m.group(1), data, {"label": None, "raw_label": "female" if m.group(3) == "1" else "male",
                                 "age": int(m.group(2)), "race": UTKFACE_RACES[int(m.group(4))],
                                 "person": None, "group": group,
                                 "split": "test" if zlib.crc32(group.encode()) % 5 == 0 else "dev"}


def _speakers(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """pyAudioAnalysis's speaker-labelled recordings with their turns, test only."""
    files = {rel: data for rel, data in repository_files(source, _SPK)}
    for rel, data in sorted(files.items()):
        m = _SPK.search(rel)
        labels = files.get(rel[:-len(m.group(2))] + "segments")
        if m.group(2) != "wav" or labels is None:
            continue
        rows = labels.decode().split()
        turns = [[float(rows[i]), float(rows[i + 1]), rows[i + 2]] for i in range(0, len(rows) - 2, 3)]
        yield f"{m.group(1)}.wav", data, {"label": None, "raw_label": None, "person": None, "split": "test",
                                         "turns": turns}


def history_files(source: Path, pattern: re.Pattern) -> Iterator[tuple[str, bytes]]:
    """(file name, bytes) of every file whose path matches ``pattern`` in any commit of the bare git directory
    ``source`` (files deleted later included), each name once: the first readable version, newest commits first.
    A blob the snapshot does not hold is skipped."""
    revs = subprocess.run(["git", "--git-dir", str(source), "rev-list", "--all"], check=True, capture_output=True,
                          text=True).stdout.split()
    seen: set[str] = set()
    for rev in revs:
        tree = subprocess.run(["git", "--git-dir", str(source), "ls-tree", "-r", rev], capture_output=True,
                              text=True, check=False).stdout.splitlines()
        for line in tree:
            meta, _, path = line.partition("\t")
            m = pattern.search(path)
            if not m or m.group(1) in seen:
                continue
            blob = subprocess.run(["git", "--git-dir", str(source), "cat-file", "blob", meta.split()[2]],
                                  capture_output=True, check=False)
            if blob.returncode == 0:
                seen.add(m.group(1))
                yield m.group(1), blob.stdout


def _cremad(source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """CREMA-D clips (``_CREMAD``) from a repository's history (or a work tree), all test; actor 1001 is never read."""
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such directory")
    files = (history_files(source, _CREMAD) if (source / "HEAD").is_file() and (source / "objects").is_dir()
             else repository_files(source, _CREMAD))
    for rel, data in files:
        m = _CREMAD.search(rel if "/" in rel else f"hdf5/{rel}")
        yield m.group(1), data, {"label": CREMAD_LABELS[m.group(3)], "raw_label": m.group(3),
                                 "person": m.group(2), "split": "test"}


#: Set name -> the reader of its records, in the order the sets are named to the user.
READERS = {"ckplus": _ckplus, "rafdb": _rafdb, "fer2013": _fer2013, "ravdess": _ravdess, "emodb": _emodb, "meld": _meld,
           "goemotions": _goemotions, "utkface": _utkface, "speakers": _speakers, "cremad": _cremad}


def set_records(name: str, source: Path) -> Iterator[tuple[str, bytes, dict]]:
    """(file name in the set, bytes, manifest record without ``path``) for set ``name``.

    Raises (as the first record is drawn):
        ValueError: ``name`` is not one of ``READERS``.
        FileNotFoundError: ``source`` does not exist.
    """
    if name not in READERS:
        raise ValueError(f"unknown set {name!r}; choose {', '.join(READERS)}")
    yield from READERS[name](source)
