"""Evidence of one candidate clip, per modality: what the verifier's tools observed, as cited ``Evidence``.

Each builder reads one modality of a candidate and returns the ``Evidence`` items the rationale may cite (each
with a ``ref`` to the stored record it rests on), the support the modality gives the question, and the typed
observations the emotion reasoner reads (``agents.observations.Observations``):

- ``face_evidence`` (visual): the faces' expressions over the candidate, the target emotions' probability;
- what people do (visual: gestures, social events, their match to the question and the faces around the best match):
  ``agents.behaviour_evidence``, with ``face_item`` and ``text_matches`` from here;
- ``speech_evidence`` (verbal): the transcript segments the clip has words of, quoted whole, with speaker and the words'
  emotion;
- ``voice_emotion_evidence`` (vocal): the voice emotion of the candidate's clip;
  ``vocal_evidence`` (vocal): each utterance's loudness, speech rate and pitch.

The verifier (``agents.verifier``) combines them into a candidate's support.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.observations import (
    FaceReading,
    VerbalObservations,
    VisualObservations,
    VocalObservations,
)
from agents.schema import Evidence, Proposal
from agents.state import RunContext
from memory.store import VideoIndex
from tools.core.schema import AFFECTNET8, FaceObservation
from tools.perception.engine import FrameObservation
from tools.perception.text import load_text_encoder
from tools.perception.text_emotion import load_text_emotion
from tools.perception.voice_emotion import valence_arousal
from tools.signals.diarization import sure_speakers
from tools.signals.lexicon import keyword_overlap, speech_match
from tools.signals.social import SocialFrame, in_view, speaker_in_view
from tools.signals.stretches import best_stretch, onset_offset

#: The stretch (s) of a candidate whose faces give its visual support: the best-showing stretch this long, so that a
#: feeling shown for a couple of seconds in a longer clip (a shot shorter than 5 s is one clip, ``indexing.clips``) is
#: supported as in a clip that holds only it, and clips of different lengths compare.
SUPPORT_STRETCH_S = 2.0
#: Visual evidence items cited per candidate at most.
MAX_FACE_EVIDENCE = 3
#: The AffectNet-8 labels that are a feeling shown: every one but neutral (``face_evidence(open_feeling=True)``).
FEELINGS = [k for k in AFFECTNET8 if k != "neutral"]


def face_evidence(index: VideoIndex, cand: Proposal, stored: list[tuple[FrameObservation, Path]], tool: str,
                  targets: list[str], step: float, persons: set[int] | None = None, own_baseline: bool = True,
                  open_feeling: bool = False) -> tuple[list[Evidence], float, VisualObservations]:
    """Up to ``MAX_FACE_EVIDENCE`` face observations as visual evidence (those showing the target emotions
    most and, when the clip's faces mostly show another emotion, the one showing it most), the visual
    support, and a summary.

    ``step`` is the frame interval in seconds (1 / verify fps); an observation's evidence spans one step. The visual
    support is the target emotions' reading over the best-showing ``SUPPORT_STRETCH_S`` of the candidate
    (``best_stretch``), per frame the face that shows them most; the summary's ``shown_s`` is where each label shows
    (``onset_offset``). With ``persons`` (the question's grounded people, ``agents.grounding``) only their faces count.
    With ``own_baseline`` the support and the choice of faces read each face against its person's own usual reading
    (``VideoIndex.salient_p``), and the summary gives the faces as the judge names them: against each one's person's
    usual reading where the person has one (``VideoIndex.departure``: ``departure_mean``, and the frames' top labels
    and ``shown_s`` from it); the evidence still quotes the reading as it is, adding the label against the person's
    usual look where that differs. With ``open_feeling`` (a question
    asking which feeling someone shows, ``agents.schema.Intent.asks_feeling``; ``targets`` empty) the support and the
    faces chosen are those of the strongest feeling but neutral (``FEELINGS``) each face shows: where the question's
    people show one most.
    """
    frames = [fr for fr, _ in stored]
    person_of = {f.id: index.face_person(f) for fr in frames for f in fr.faces}
    if persons:
        frames = [fr.model_copy(update={"faces": [f for f in fr.faces if person_of[f.id] in persons]}) for fr in frames]
    where = {f.id: path for fr, path in stored for f in fr.faces}
    faces = [f for fr in frames for f in fr.faces]
    if not faces:
        return [], 0.0, VisualObservations(expression_mean={}, frames=[], n_faces=0)

    asked = targets or (FEELINGS if open_feeling else [])

    def target_p(f) -> float:
        return sum(f.expression[e] for e in targets)

    def salient(f) -> float:
        if not targets:  # open: the strongest one feeling, not their sum (1 - neutral, nearly always high)
            return max(index.salient_p(f, [k]) if own_baseline else f.expression[k] for k in asked)
        return index.salient_p(f, targets) if own_baseline else target_p(f)

    with_faces = sorted((fr for fr in frames if fr.faces), key=lambda fr: fr.t)
    times = [fr.t for fr in with_faces]
    visual = best_stretch(times, [max(salient(f) for f in fr.faces) for fr in with_faces], SUPPORT_STRETCH_S, step
                          ) if asked else 0.0
    named, departed = named_faces(index, faces, person_of, own_baseline)
    obs = face_summary(cand, with_faces, named, departed, person_of, step)
    key = salient if asked else (lambda f: f.top()[1])
    chosen = sorted(faces, key=key, reverse=True)[:MAX_FACE_EVIDENCE]
    read_as = obs.departure_mean or obs.expression_mean  # how the judge reads the faces
    shown = max(read_as, key=read_as.__getitem__)  # what the faces show most over the clip
    if asked and shown not in asked:  # cite it too: the emotion reasoner may label the clip with it
        typical = max(faces, key=lambda f: named[f.id].expression[shown])
        if typical not in chosen:
            chosen = [*chosen[: MAX_FACE_EVIDENCE - 1], typical]
    evidence = []
    for n, f in enumerate(sorted(chosen, key=lambda f: f.t)):
        extra = f"; {'+'.join(targets)} {target_p(f):.2f}" if targets and f.top()[0] not in targets else ""
        if f.id in departed and (own := named[f.id].top()[0]) != f.top()[0]:
            extra += f"; {own} against this person's usual look"
        evidence.append(face_item(index, cand, f, where[f.id], f"{cand.clip_id}.v{n}", tool, step, extra))
    return evidence, visual, obs


def named_faces(index: VideoIndex, faces: list[FaceObservation], person_of: dict[str, int | None],
                own_baseline: bool = True) -> tuple[dict[str, FaceObservation], set[str]]:
    """The faces as the emotion reasoner names them, by face id: with ``own_baseline``, each face whose person
    (``person_of``: face id -> ``VideoIndex.face_person``) has a usual reading read against it
    (``VideoIndex.departure``), the others as read; and the ids of the faces read so."""
    named, departed = {}, set()
    for f in faces:
        d = index.departure(f, person_of[f.id]) if own_baseline else None
        named[f.id] = f if d is None else f.model_copy(update={"expression": d})
        if d is not None:
            departed.add(f.id)
    return named, departed


def face_summary(cand: Proposal, with_faces: list[FrameObservation], named: dict[str, FaceObservation],
                 departed: set[str], person_of: dict[str, int | None], step: float) -> VisualObservations:
    """The ``VisualObservations`` of a candidate's frames with faces (``with_faces``, in time order; ``step`` the frame
    interval in seconds): the faces' mean as read and, where any face was read against its person's usual reading
    (``departed``, ids of ``named``: ``named_faces``), the mean of the faces as named (``departure_mean``), the
    frames' top labels with each face's person (``person_of``) and where each label shows (``shown_s``, from its
    onset to its offset) as named."""
    faces = [f for fr in with_faces for f in fr.faces]
    mean = mean_expression(faces)
    times = [fr.t for fr in with_faces]
    spans = {k: onset_offset(times, [max(named[f.id].expression[k] for f in fr.faces) for fr in with_faces], step,
                             (cand.start_s, cand.end_s)) for k in mean}
    tops = [FaceReading(t=f.t, top=named[f.id].top()[0], p=round(named[f.id].top()[1], 3),
                        person=person_of[f.id]) for f in faces]
    return VisualObservations(
        expression_mean=mean, **({"departure_mean": mean_expression([named[f.id] for f in faces])} if departed else {}),
        n_faces=max(len(fr.faces) for fr in with_faces), frame_step_s=round(step, 3), frames=tops,
        shown_s={k: s for k, s in spans.items() if s})


def mean_expression(faces: list[FaceObservation]) -> dict[str, float]:
    """The mean AffectNet-8 expression of ``faces`` (at least one), {label: probability} rounded to 4 places."""
    return {k: round(float(np.mean([f.expression[k] for f in faces])), 4) for k in faces[0].expression}


def face_item(index: VideoIndex, cand: Proposal, face: FaceObservation, path: Path, item_id: str, tool: str,
              step: float, extra: str = "") -> Evidence:
    """One face observation as visual evidence: whose face, where (its box centre, normalized image coordinates),
    its top label and probability (``extra`` added inside the parentheses), over one frame interval ``step`` (s)
    from its time, citing its record in ``path``."""
    label, p = face.top()
    cx, cy = (face.box.x0 + face.box.x1) / 2, (face.box.y0 + face.box.y1) / 2
    person = index.face_person(face)
    who = f"person {person}'s face" if person is not None else "a face"
    return Evidence(id=item_id, modality="visual", tool=tool, start_s=face.t,
                    end_s=round(min(cand.end_s, face.t + step), 3), person=person,
                    detail=f"{who} at x={cx:.2f}, y={cy:.2f} shows {label} (p={p:.2f}{extra})",
                    ref=index.cache.ref(path, face.id))


def index_sure_speakers(index: VideoIndex) -> dict[str, int]:
    """Segment id -> the index's speaker of its utterance where it is sure (``tools.signals.diarization.sure_speakers``:
    by lips, or by a voice only ever heard with that person's lips)."""
    return sure_speakers((u.segment_id, u.voice, u.speaker, u.speaker_by) for u in index.utterances)


def speech_evidence(ctx: RunContext, cand: Proposal, texts: list[str],
                    frames: list[SocialFrame]) -> tuple[list[Evidence], float, VerbalObservations]:
    """One verbal evidence item per transcript segment with words in the candidate's index clip, quoting the whole
    segment (a sentence runs on across a cut, and a clip ends at one: ``indexing.clips.clip_windows``) with the emotion
    its words read as (``tools.perception.text_emotion``: words8 over the index's transcript encoder); the emotion
    reasoner gets those sentences, but the speech match, the words' emotion and their span read the words said inside
    the clip. Its speaker is the person whose lips move with those words in the clip's frames (within the shot), else
    the utterance's index-time speaker (lips in the 1 fps pass, or its voice; ``memory.store.Utterance.speaker_by``),
    who is also kept when off screen while a group is shown if sure (``index_sure_speakers``,
    ``tools.signals.social.speaker_in_view``)."""
    index = ctx.index
    clip = index.clip_by_id.get(cand.clip_id)
    lo, hi = (clip.start_s, clip.end_s) if clip is not None else (cand.start_s, cand.end_s)
    own = [(seg, [w for w in seg.words if lo <= (w.start_s + w.end_s) / 2 < hi]) for seg in index.transcript.segments]
    per_segment = [(seg, ws) for seg, ws in own if ws]
    if not per_segment:
        return [], 0.0, VerbalObservations()
    said = " ".join(w.text for _, ws in per_segment for w in ws)
    quotes = [" ".join(w.text for w in seg.words) for seg, _ in per_segment]
    words_emotion = load_text_emotion(index.config.device, index.transcript_encoder)
    vecs = words_emotion.encoder.encode([*texts, said, *quotes])  # one encoding pass for match and emotion
    sim = speech_match(float((vecs[: len(texts)] @ vecs[len(texts)]).max()), keyword_overlap(texts[0], said))
    said_read, *reads = words_emotion.read(vecs[len(texts):])
    evidence = []
    by_voice, sure = {u.segment_id for u in index.utterances if u.speaker_by == "voice"}, index_sure_speakers(index)
    for n, ((seg, ws), text, read) in enumerate(zip(per_segment, quotes, reads, strict=True)):
        label = max(read, key=read.__getitem__)
        known, span = index.segment_speakers.get(seg.id), (ws[0].start_s, ws[-1].end_s + 1e-3, index.cuts)
        who = speaker_in_view(frames, *span, sure.get(seg.id))
        off = who is not None and who == sure.get(seg.id) and who not in in_view(frames, *span)
        how = " (off screen)" if off else ""
        if who is None and known is not None:
            who, how = known, " (by voice)" if seg.id in by_voice else ""
        speaker = f"person {who}{how}" if who is not None else "the speaker"
        says = f"says (spoken in {seg.translated_from}; Whisper's English translation)" if seg.translated_from else "says"
        evidence.append(Evidence(
            id=f"{cand.clip_id}.t{n}", modality="verbal", tool=index.transcript.model, start_s=seg.words[0].start_s,
            end_s=seg.words[-1].end_s, person=who,
            detail=f'{speaker} {says} "{text}" (words read as {label}, p={read[label]:.2f})',
            ref=index.ref("transcript.json", seg.id), quote=text))
    obs = VerbalObservations(text=" ".join(quotes), span=[per_segment[0][1][0].start_s, per_segment[-1][1][-1].end_s],
                             emotion_distribution=said_read, query_similarity=round(sim, 3))
    return evidence, sim, obs


def voice_emotion_evidence(index: VideoIndex, cand: Proposal, targets: list[str]
                           ) -> tuple[list[Evidence], float, VocalObservations]:
    """The candidate's vocal emotion as vocal evidence citing clips.json, the vocal support (target emotions'
    probability) and the distribution for the emotion reasoner: the clip's (``Clip.voice_emotion``, read over the
    speech of the clip's own shot)."""
    clip = index.clip_by_id.get(cand.clip_id)
    if clip is None or not clip.voice_emotion:
        return [], 0.0, VocalObservations()
    dist, start, end = clip.voice_emotion, clip.start_s, clip.end_s
    label = max(dist, key=dist.__getitem__)
    valence, arousal = valence_arousal(dist)
    extra = f"; {'+'.join(targets)} {sum(dist[t] for t in targets):.2f}" if targets and label not in targets else ""
    ev = Evidence(id=f"{cand.clip_id}.ve", modality="vocal", tool=index.manifest["models"]["voice"],
                  start_s=start, end_s=end,
                  detail=f"the voice sounds {label} (p={dist[label]:.2f}{extra}; arousal {arousal:+.2f})",
                  ref=index.ref("clips.json", clip.id))
    support = sum(dist[t] for t in targets) if targets else 0.0
    return [ev], support, VocalObservations(voice_distribution=dist, arousal=arousal, valence=valence)


def vocal_evidence(index: VideoIndex, cand: Proposal) -> tuple[list[Evidence], dict]:
    """Vocal cues of each utterance overlapping the clip (loudness, speech rate, pitch), citing utterances.json."""
    evidence, obs = [], {}
    for u in index.utterances:
        p = u.prosody
        if not (u.start_s < cand.end_s and cand.start_s < u.end_s) or p.rms_dbfs < -60 or p.speech_rate_wps == 0:
            continue
        who = f"person {u.speaker}'s" if u.speaker is not None else "the"
        evidence.append(Evidence(
            id=f"{cand.clip_id}.a{len(evidence)}", modality="vocal", tool="prosody", start_s=p.start_s, end_s=p.end_s,
            person=u.speaker,
            detail=f"voice level {p.rms_dbfs:.1f} dBFS RMS (peak {p.peak_dbfs:.1f}), {p.speech_rate_wps:.1f} words/s"
                   + (f", pitch {p.pitch_median_hz:.0f} Hz over {p.pitch_range_st:.1f} semitones"
                      if p.pitch_median_hz is not None else "") + f" ({who} voice in this turn)",
            ref=index.ref("utterances.json", p.id)))
        obs[u.id] = p.model_dump()
    return evidence, obs


def text_matches(index: VideoIndex, texts: list[str], details: list[str]) -> list[float]:
    """How well the query ``texts`` match each of ``details``: ``speech_match`` of the best MiniLM cosine (the index's
    device) and the literal overlap with ``texts[0]``, one score in [0, 1] per detail."""
    enc = load_text_encoder(model=None, device=index.config.device)
    sims = (enc.encode(texts) @ enc.encode(details).T).max(axis=0)
    return [speech_match(float(s), keyword_overlap(texts[0], d)) for s, d in zip(sims, details, strict=True)]
