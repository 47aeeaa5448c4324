"""The index build's clips: overlapping windows, what each showed and said, and their vectors.

A clip is a time window (default 4 s every 2 s, the VQAU setting) inside one shot (``clip_windows``). Each gets the
mean AffectNet-8 expression of the faces seen in it, the recognised words, the vocal emotion over its detected speech
(``tools.perception.voice_emotion``), what it sounds like beyond words (music, noise, a swell;
``tools.perception.sound``), up to three social events, and a plain-words descriptor that the text-side embedder
indexes (with a CLIP embedder: the mean of the clip's frame vectors instead). With a caption model, a keyframe every
few seconds is captioned (``caption_keyframes``) and each clip's descriptor opens with its scene.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Literal

import numpy as np

from indexing.speakers import clip_speakers
from memory.store import Clip, IndexConfig
from tools.core.frames import iter_frames
from tools.core.media import VideoInfo
from tools.core.schema import AFFECTNET8, FrameFaces, Transcript, WordTimes
from tools.perception.asr import SAMPLE_RATE
from tools.perception.captions import CaptionError, KeyframeCaptioner, caption_times, scene_of
from tools.perception.sound import describe_sound, sound_stats
from tools.signals.diarization import VoiceTurn
from tools.signals.events import SocialEvent
from tools.signals.lexicon import EMOTION_DESCRIPTIONS
from tools.signals.shots import shot_parts
from tools.signals.social import SocialFrame


def clip_windows(duration_s: float, length_s: float, stride_s: float, cuts: Sequence[float] = ()
                 ) -> list[tuple[float, float]]:
    """Windows [start, end) (seconds) of ``length_s`` every ``stride_s`` covering [0, duration_s], laid out shot by
    shot: ``cuts`` (shot starts, seconds; ``tools.signals.shots``) split the video into shots
    (``tools.signals.shots.shot_parts``: no shot under its ``MIN_PART_S``, so a cut that close to another, or to either
    end of the video, stays inside a window), and each shot gets windows of its own, so no window spans a kept cut and
    a short shot is one window from its first frame to its last.

    Within a shot (the whole video without cuts) the last window ends at the shot's end (a tail shorter than half a
    stride is absorbed into the window before it); a shot shorter than one window gives one window.
    """
    if duration_s <= 0:
        return []
    out = []
    for a, b in shot_parts(cuts, 0.0, duration_s):
        start = a
        while start < b:  # a stride longer than the window can step past the shot's end
            end = min(b, start + length_s)
            if b - end < stride_s / 2:
                end = b
            out.append((round(start, 3), round(end, 3)))
            if end >= b:
                break
            start += stride_s
    return out


def describe_clip(expression: dict[str, float], max_faces: int, speech: str, events: list[str] = (),
                  sound: str | None = None, scene: str | None = None) -> str:
    """Descriptor text of a clip: its keyframe's caption (``scene``), what faces showed, what was said,
    what else was heard (``sound``, from ``tools.perception.sound.describe_sound``) and the social events, in plain words."""
    parts = [f"scene: {scene}"] if scene else []
    if max_faces:
        ranked = sorted(expression.items(), key=lambda kv: -kv[1])[:2]
        top = ranked[0][0]
        people = "one person" if max_faces == 1 else f"{max_faces} people"
        parts.append(f"{people} on screen, {EMOTION_DESCRIPTIONS[top][0]}")
        parts.append("expressions: " + ", ".join(f"{k} {v:.2f}" for k, v in ranked))
    else:
        parts.append("no face visible")
    parts.append(f'someone says: "{speech}"' if speech else "no speech")
    if sound:
        parts.append(f"sound: {sound}")
    parts.extend(events)
    return "; ".join(parts)


def voice_span(transcript: Transcript, start_s: float, end_s: float,
               by: Literal["speech", "words"] = "speech") -> tuple[float, float] | None:
    """The stretch of [start_s, end_s) the voice is read over: from the first to the last moment of speech
    in it. ``by="speech"``: the voice-activity regions (Silero VAD, ``Transcript.speech_regions``; the
    recogniser's words when it recorded none), which do not depend on what the recogniser made of the
    words, so a voice in a language it cannot read, or a segment its guards dropped, is still read;
    ``by="words"``: the recognised words only (the reading before, kept for ``studies.voice_span``). None
    when there is no speech in the window."""
    if by == "speech" and transcript.speech_regions:
        inside = [(max(a, start_s), min(b, end_s)) for a, b in transcript.speech_regions if a < end_s and b > start_s]
        return (inside[0][0], inside[-1][1]) if inside else None
    words = transcript.words_between(start_s, end_s)
    return (max(start_s, words[0].start_s), min(end_s, words[-1].end_s)) if words else None


def clip_voice(model, audio: np.ndarray, transcript: Transcript, start_s: float, end_s: float,
               by: Literal["speech", "words"] = "speech") -> dict[str, float] | None:
    """Vocal AffectNet-8 distribution over the speech of [start_s, end_s) (``voice_span``, so silence and
    music around it are not read), read by ``model`` alone (no speaker baseline; ``clip_voices``); None without a
    voice model, or with no or too little speech."""
    span = voice_span(transcript, start_s, end_s, by) if model is not None else None
    if span is None:
        return None
    return model.distribution(audio[int(span[0] * SAMPLE_RATE) : int(span[1] * SAMPLE_RATE)], SAMPLE_RATE)


def clip_voices(windows: Sequence[tuple[float, float]], model, audio: np.ndarray, transcript: Transcript,
                turns: Sequence[VoiceTurn] = (), frames: Sequence[SocialFrame] = (), cuts: Sequence[float] = ()
                ) -> list[dict[str, float] | None]:
    """The vocal AffectNet-8 distribution of each window (seconds) in order, over its speech (``voice_span``): the
    features of every window's speech first (``clip_voice_features``), then all read at once (``model.read_clips``),
    so a reader with a speaker baseline reads each against the windows of the same speaker
    (``indexing.speakers.clip_speakers``: the person whose lips move in ``frames`` within the shot ``cuts``, else the
    voice ``turns`` name).
    Every None without a voice model. The index build (``indexing.build``) computes the features on a thread of
    their own while it finds the utterances and writes and embeds the clips' descriptors, which do not depend on them
    (numpy's work on a clip's samples runs outside Python's lock), and reads them after."""
    if model is None:
        return [None] * len(windows)
    rows, spans = clip_voice_features(windows, model, audio, transcript)
    return model.read_clips(rows, clip_speakers(spans, turns, frames, cuts))


def clip_voice_features(windows: Sequence[tuple[float, float]], model, audio: np.ndarray, transcript: Transcript
                        ) -> tuple[list[np.ndarray | None], list[tuple[float, float] | None]]:
    """Each window's speech span (``voice_span``, seconds; None: no speech) and the reader's feature row of the speech
    in it (``model.features``; None where there is no span, and every row None without a voice model)."""
    spans = [voice_span(transcript, s, e) for s, e in windows]
    rows = [None if span is None or model is None else
            model.features(audio[int(span[0] * SAMPLE_RATE) : int(span[1] * SAMPLE_RATE)], SAMPLE_RATE)
            for span in spans]
    return rows, spans


def make_clips(windows: list[tuple[float, float]], affect: list[FrameFaces], transcript: Transcript,
               events: list[SocialEvent], audio: np.ndarray, captions: list[tuple[float, str]] = (),
               caption_every_s: float = 10.0) -> list[Clip]:
    """One ``Clip`` per window (seconds), ids ``c<i>``, from ``affect`` in time order, without its vocal reading
    (``clip_voices``, set by ``with_voices``); an empty ``audio`` (``--no-audio``) gives no sound; ``captions`` are
    (keyframe time, caption) pairs (``tools.perception.captions``)."""
    regions = transcript.speech_regions or [(s.start_s, s.end_s) for s in transcript.segments]
    times = [fr.t for fr in affect]  # in time order, as observed
    words = WordTimes(transcript)
    clips = []
    for i, (s, e) in enumerate(windows):
        frames = affect[bisect.bisect_left(times, s) : bisect.bisect_left(times, e)]
        faces = [f for fr in frames for f in fr.faces]
        n_max = max((len(fr.faces) for fr in frames), default=0)
        expr = {lab: round(float(np.mean([f.expression[lab] for f in faces])), 4) if faces else 0.0
                for lab in AFFECTNET8}
        speech = " ".join(w.text for w in words.words_between(s, e))
        ev_text = [ev.detail for ev in events if ev.start_s < e and ev.end_s >= s][:3]
        sound = sound_stats(audio, SAMPLE_RATE, s, e, regions) if len(audio) else None
        scene = scene_of(s, e, list(captions), caption_every_s)
        clips.append(Clip(id=f"c{i}", start_s=s, end_s=e,
                          descriptor=describe_clip(expr, n_max, speech, ev_text, describe_sound(sound), scene),
                          max_faces=n_max, expression=expr, speech=speech,
                          sound=sound, scene=scene))
    return clips


def with_voices(clips: list[Clip], voices: Sequence[dict[str, float] | None],
                speakers: Sequence[tuple[str, int] | None]) -> list[Clip]:
    """``clips`` with each one's vocal reading (``clip_voices``) and speaker set, one of each per clip in order; a
    speaker key (``indexing.speakers.clip_speakers``) names a person (``Clip.speaker``) when it is ``("person", id)``.

    Raises:
        ValueError: ``voices`` or ``speakers`` is not one per clip.
    """
    return [c.model_copy(update={"voice_emotion": v, "speaker": k[1] if k is not None and k[0] == "person" else None})
            for c, v, k in zip(clips, voices, speakers, strict=True)]


def clip_vectors(clips: list[Clip], embedder, frame_times: list[float], frame_vectors: np.ndarray | None) -> np.ndarray:
    """(n_clips, dim) vectors: with a frame embedder the mean of the frame vectors inside each clip (the
    nearest frame when none falls inside); otherwise the embedded descriptors."""
    if not embedder.uses_frames:
        return embedder.embed_descriptors([c.descriptor for c in clips])
    ft = np.asarray(frame_times)
    rows = []
    for c in clips:
        inside = (ft >= c.start_s) & (ft < c.end_s)
        rows.append(frame_vectors[inside].mean(axis=0) if inside.any() else frame_vectors[np.abs(ft - c.start_s).argmin()])
    return np.stack(rows)


def caption_keyframes(info: VideoInfo, cuts: list[float], cfg: IndexConfig, progress
                      ) -> tuple[KeyframeCaptioner, list[tuple[float, str]]]:
    """(the captioner with its counts, (keyframe time, caption) pairs) for ``cfg.caption_model``
    (``tools.perception.captions``); keyframes that fail are skipped.

    Raises:
        CaptionError: no keyframe could be captioned (the model is unreachable or answers nothing).
    """
    captioner = KeyframeCaptioner(cfg.caption_model)
    times = caption_times(info.duration_s, cuts, cfg.caption_every_s)
    task = progress.add_task("caption", total=len(times))
    captions = []
    for t in times:
        frame = next(iter_frames(info.path, fps=1.0, start_s=t, end_s=t + 1.0), None)
        text = captioner.caption(frame[1]) if frame is not None else None
        if text:
            captions.append((t, text))
        progress.update(task, advance=1)
    if times and not captions:
        raise CaptionError(f"--caption-model {cfg.caption_model}: no keyframe could be captioned "
                           f"({captioner.failures} of {captioner.calls} calls failed; last: {captioner.last_error})")
    return captioner, captions
