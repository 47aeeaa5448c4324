"""A video's stored index: its records, and how it is written to and read from the cache (its settings,
``IndexConfig``, are ``memory.index_config``'s).

An index directory (``memory.cache.VideoCache.index_dir``) holds ``clips.json``, ``transcript.json``,
``faces.json``, ``tracks.json``, ``events.json``, ``utterances.json``, ``voices.json``, ``timelines.json`` (each
person's affect timeline, ``VideoIndex.timelines``), three FAISS files and ``manifest.json`` (and ``frames/``, the
index frames' gaze and hands the verifier reads back: ``indexing.observe``).
``save_index`` writes them (into a staging directory the cache renames into place); ``load_index`` reads them back
into a ``VideoIndex``. Building the records is ``indexing.build``'s work.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from memory.cache import VideoCache, read_json, read_records, write_json
from memory.index import VectorIndex
from memory.index_config import INDEX_FORMAT, IndexConfig, library_versions
from memory.person_affect import PersonAffect
from tools.core.media import VideoInfo
from tools.core.schema import Box, FaceObservation, FrameFaces, ProsodyStats, Transcript
from tools.core.spans import SpansByStart
from tools.perception.sound import SoundStats
from tools.perception.text import transcript_encoder_for
from tools.perception.text_emotion import load_text_emotion
from tools.signals.diarization import VoiceTurn
from tools.signals.events import SocialEvent
from tools.signals.social import SpeechTurn
from tools.signals.speech_timeline import speech_timelines
from tools.signals.timeline import PersonTimeline, affect_timelines, timeline_method
from tools.signals.tracks import TrackSummary, box_similarity


class Utterance(BaseModel):
    """One utterance (a transcript segment, split at pauses) with its speaker track from lip activity
    and its vocal cues; ``segment_id`` names the transcript segment."""

    id: str
    segment_id: str
    start_s: float
    end_s: float
    speaker: int | None = Field(None, description="person id (TrackSummary.person; the track id without "
                                "re-identification), None when unknown")
    speaker_by: Literal["lips", "voice"] | None = Field(
        None, description="how the speaker was found: lips (a face's lips moved with the speech) or voice (its "
                          "voice is the voice of a person whose lips moved with it elsewhere; tools.signals.diarization)")
    voice: int | None = Field(None, description="voice cluster id (tools.signals.diarization; 0 = first voice heard), "
                                               "None without voice diarization or when too short to embed")
    prosody: ProsodyStats


class Clip(BaseModel):
    """One indexed clip: a window [start_s, end_s) (seconds) inside one shot of at least a second
    (``indexing.clips.clip_windows``) with what the index-time pass saw and heard."""

    id: str
    start_s: float
    end_s: float
    descriptor: str
    max_faces: int
    expression: dict[str, float] = Field(description="mean AffectNet-8 probabilities over faces seen")
    speech: str
    voice_emotion: dict[str, float] | None = Field(
        None, description="AffectNet-8 probabilities of the voice over the clip's detected speech (indexing.clips.voice_span; "
                          "tools.perception.voice_emotion); None without speech")
    speaker: int | None = Field(None, description="person id of who speaks in the clip's speech "
                                "(indexing.speakers.clip_speakers: by lips, else by the voice's linked person); None "
                                "when no speech or unknown")
    sound: SoundStats | None = Field(None, description="quiet / speech / music / noise and loudness change "
                                                       "(tools.perception.sound); None without audio")
    scene: str | None = Field(None, description="caption of the clip's keyframe (--caption-model; tools.perception.captions)")


@dataclass
class StoredRecords:
    """The records an index stores, each list in time order (seconds from the start of the video)."""

    clips: list[Clip]
    transcript: Transcript
    faces: list[FrameFaces]
    tracks: list[TrackSummary]
    cuts: list[float]
    events: list[SocialEvent]
    utterances: list[Utterance]
    voices: list[VoiceTurn]

    @functools.cached_property
    def person_by_track(self) -> dict[int, int]:
        """Track id -> person id (``TrackSummary.person_id``: one id for the tracks of one person across shots)."""
        return {t.track_id: t.person_id for t in self.tracks}


@dataclass
class IndexRecords(StoredRecords):
    """Everything an index build produces, before it is stored (``save_index``).

    ``clip_vectors`` (n_clips, dim), ``segment_vectors`` (n_segments, dim) and ``event_vectors``
    (n_events, dim) are float32 rows, L2-normalised by their embedders (a CLIP clip vector, the mean of its frames'
    vectors, is shorter; ``VectorIndex`` normalises every row it stores).
    """

    clip_vectors: np.ndarray
    segment_vectors: np.ndarray
    event_vectors: np.ndarray


@dataclass
class VideoIndex(StoredRecords, PersonAffect):
    """A loaded index of one video: its records, their FAISS indexes, ``dir`` holding its files and
    ``cache`` the video's cache; each person's usual face reading and a face against it (``PersonAffect``)."""

    info: VideoInfo
    cache: VideoCache
    config: IndexConfig
    dir: Path
    clip_index: VectorIndex
    segment_index: VectorIndex
    event_index: VectorIndex
    manifest: dict
    built_now: bool = False
    timings_s: dict[str, float] = field(default_factory=dict)

    def ref(self, filename: str, record_id: str) -> str:
        """Evidence reference to record ``record_id`` in this index's file ``filename``."""
        return self.cache.ref(self.dir / filename, record_id)

    @functools.cached_property
    def transcript_encoder(self) -> str:
        """The ``tools.perception.text.TRANSCRIPT_ENCODERS`` name that embedded this index's transcript segments (the
        config's choice, ``auto`` decided by the transcript's language); questions searched against them
        must use it too."""
        return transcript_encoder_for(self.config.transcript_encoder, self.transcript)

    @functools.cached_property
    def face_times(self) -> list[float]:
        """The time (s) of each index frame in ``faces``, increasing (for bisection)."""
        return [fr.t for fr in self.faces]

    @functools.cached_property
    def _sorted_cuts(self) -> list[float]:
        return sorted(self.cuts)

    def face_track(self, face: FaceObservation) -> int | None:
        """Track id of a face observation made at any frame rate (``track_at`` of its time and box)."""
        return self.track_at(face.t, face.box)

    def person_of(self, track_id: int | None) -> int | None:
        """The person id of a track (``TrackSummary.person``: one id for the tracks of one person across
        shots), or the track id itself in an index built without re-identification."""
        return None if track_id is None else self.person_by_track.get(track_id, track_id)

    @functools.cached_property
    def clip_by_id(self) -> dict[str, Clip]:
        """The index's clips by id."""
        return {c.id: c for c in self.clips}

    @functools.cached_property
    def clips_by_start(self) -> SpansByStart[Clip]:
        """The index's clips looked up by time (``tools.core.spans.SpansByStart``)."""
        return SpansByStart(self.clips)

    @functools.cached_property
    def timelines(self) -> list[PersonTimeline]:
        """Each person's face reading over the video, baseline, salience and change points
        (``tools.signals.timeline.affect_timelines`` of the index's faces): read from ``timelines.json`` when the index
        pass stored them with this code's ``timeline_method``, computed otherwise (an index stored before they were)."""
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            stored = read_json(self.dir / "timelines.json")
            if stored["method"] == timeline_method():
                return [PersonTimeline.model_validate(t) for t in stored["timelines"]]
        return affect_timelines(self.faces, self.person_by_track)

    @functools.cached_property
    def speech_timelines(self) -> list[PersonTimeline]:
        """Each speaker's voice (``vocal``: the clips' voice readings) and words (``verbal``: the words8 head over each
        utterance's stored sentence vector) over the video, vocal first (``tools.signals.speech_timeline``; computed on
        first use, not stored)."""
        turns = [SpeechTurn(start_s=u.start_s, end_s=u.end_s, speaker=u.speaker, record_id=u.id) for u in self.utterances]
        heard = [c for c in self.clips if c.voice_emotion]
        voice = [(c.start_s, c.end_s, c.voice_emotion) for c in heard]
        words = []
        if self.utterances and len(self.segment_index) == len(self.transcript.segments):
            reads = load_text_emotion(self.config.device, self.transcript_encoder).read(self.segment_index.vectors())
            by_segment = {seg.id: r for seg, r in zip(self.transcript.segments, reads, strict=True)}
            words = [(u.start_s, u.end_s, by_segment[u.segment_id]) for u in self.utterances if u.segment_id in by_segment]
        return (speech_timelines(voice, turns, "vocal", [c.speaker for c in heard])
                + speech_timelines(words, turns, "verbal"))

    @functools.cached_property
    def segment_speakers(self) -> dict[str, int]:
        """Transcript segment id -> the person its utterance's speaker is (by lips or voice; segments with
        no known speaker are left out)."""
        return {u.segment_id: u.speaker for u in self.utterances if u.speaker is not None}

    def face_person(self, face: FaceObservation) -> int | None:
        """Person id (``person_of``) of a face observation made at any frame rate; None when no track
        matches it. An index-time face names its own track."""
        return self.person_of(face.track_id if face.track_id is not None else self.face_track(face))

    def track_at(self, t: float, box: Box, min_similarity: float = 0.3) -> int | None:
        """Track id of a face seen at ``t`` (s) in ``box``: the index-time face nearest in time (within
        0.75 sampling intervals, in the same shot: no cut, ``tools.signals.shots``, between them) whose box is similar
        enough; None when there is none."""
        window = 0.75 / self.config.sample_fps
        best, best_sim = None, min_similarity
        lo, hi = bisect.bisect_left(self.face_times, t - window), bisect.bisect_right(self.face_times, t + window)
        cuts = self._sorted_cuts
        for fr in self.faces[lo:hi]:
            if bisect.bisect_right(cuts, max(fr.t, t)) > bisect.bisect_right(cuts, min(fr.t, t)):  # a cut between
                continue
            for f in fr.faces:
                sim = box_similarity(f.box, box)
                if f.track_id is not None and sim >= best_sim:
                    best, best_sim = f.track_id, sim
        return best


def save_index(out: Path, records: IndexRecords, info: VideoInfo, cfg: IndexConfig, models: dict[str, str],
               timings: dict[str, float], resumed_chunks: int) -> None:
    """Write ``records`` and the manifest (config, model names, library versions, stage timings in
    seconds) into the directory ``out``, the build's staging directory (``memory.cache``: renamed into place only when
    complete); the JSON files are written atomically, the FAISS files by faiss itself."""
    write_json(out / "clips.json", records.clips)
    write_json(out / "transcript.json", records.transcript)
    write_json(out / "faces.json", records.faces)
    write_json(out / "tracks.json", {"cuts": records.cuts, "tracks": records.tracks})
    write_json(out / "events.json", records.events)
    write_json(out / "utterances.json", records.utterances)
    write_json(out / "voices.json", records.voices)
    write_json(out / "timelines.json", {"method": timeline_method(),
                                        "timelines": affect_timelines(records.faces, records.person_by_track)})
    VectorIndex(records.event_vectors).save(out / "events.faiss")
    VectorIndex(records.clip_vectors).save(out / "clips.faiss")
    VectorIndex(records.segment_vectors).save(out / "segments.faiss")
    write_json(out / "manifest.json", {
        "format": INDEX_FORMAT,
        "video": {"path": str(info.path), "duration_s": info.duration_s, "fps": info.fps,
                  "width": info.width, "height": info.height},
        "config": cfg.model_dump(),
        "models": models,
        "versions": library_versions(),
        "timings_s": {k: round(v, 3) for k, v in timings.items()},
        "resumed_chunks": resumed_chunks,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    })


def load_index(info: VideoInfo, cache: VideoCache, config: IndexConfig, d: Path) -> VideoIndex:
    """Read the index stored in ``d``.

    Raises:
        OSError, ValueError, KeyError, RuntimeError: a file is missing or does not parse.
    """
    tracks = read_json(d / "tracks.json")
    return VideoIndex(
        info=info,
        cache=cache,
        config=config,
        dir=d,
        clips=read_records(d / "clips.json", list[Clip]),
        transcript=read_records(d / "transcript.json", Transcript),
        faces=read_records(d / "faces.json", list[FrameFaces]),
        tracks=[TrackSummary.model_validate(t) for t in tracks["tracks"]],
        cuts=tracks["cuts"],
        events=read_records(d / "events.json", list[SocialEvent]),
        utterances=read_records(d / "utterances.json", list[Utterance]),
        voices=read_records(d / "voices.json", list[VoiceTurn]),
        clip_index=VectorIndex.load(d / "clips.faiss"),
        segment_index=VectorIndex.load(d / "segments.faiss"),
        event_index=VectorIndex.load(d / "events.faiss"),
        manifest=read_json(d / "manifest.json"),
    )


def load_matching_index(info: VideoInfo, cache: VideoCache, config: IndexConfig, d: Path) -> VideoIndex | None:
    """The index in ``d`` when it loads and was built by this format and config; None otherwise."""
    try:
        idx = load_index(info, cache, config, d)
        ok = idx.manifest.get("format") == INDEX_FORMAT and \
            IndexConfig.model_validate(idx.manifest["config"]).key() == config.key()
        return idx if ok else None
    except (OSError, ValueError, KeyError, RuntimeError):
        return None
