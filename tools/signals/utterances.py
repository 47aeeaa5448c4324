"""From decoded Whisper segments to a ``Transcript``: utterances split at pauses, speech left untranscribed.

``guarded_transcript`` screens the segments of a decoder (``tools.perception.asr``) with the hallucination guards
(``tools.signals.transcript.SpeechGuards``), splits the kept ones into utterances at pauses (``split_utterances``)
and measures them against the voice-activity regions, so speech that was not transcribed can be counted
and warned about (``tools.signals.transcript.speech_warning``).
"""

from __future__ import annotations

from tools.core.schema import Transcript, TranscriptSegment, Word
from tools.signals.transcript import DEFAULT_GUARDS, SpeechGuards, screen_segments

#: A silence between two words at least this long (seconds) ends an utterance; so does a sentence end
#: (. ? !) followed by at least ``SENTENCE_PAUSE_S``. Pause-bounded units follow the inter-pausal-unit
#: convention of conversation analysis (e.g. Koiso et al., 1998, use 100-200 ms; we take longer pauses
#: because Whisper's word timestamps stretch over short ones).
UTTERANCE_PAUSE_S = 0.5
SENTENCE_PAUSE_S = 0.15


def split_utterances(words: list[dict]) -> list[list[dict]]:
    """Split one ASR segment's time-ordered words (dicts with ``word``, ``start``, ``end``) into
    utterances at pauses (see ``UTTERANCE_PAUSE_S``); returns the non-empty groups in order."""
    groups: list[list[dict]] = []
    for w in words:
        if groups:
            prev = groups[-1][-1]
            gap = float(w["start"]) - float(prev["end"])
            if gap >= UTTERANCE_PAUSE_S or (str(prev["word"]).strip()[-1:] in ".?!" and gap >= SENTENCE_PAUSE_S):
                groups.append([w])
                continue
            groups[-1].append(w)
        else:
            groups.append([w])
    return groups


def _uncovered_s(spans: list[tuple[float, float]], covered: list[tuple[float, float]]) -> float:
    """Seconds of the union of ``spans`` not inside the union of ``covered`` (both lists of (start, end))."""
    total = 0.0
    cov = sorted(covered)
    for a, b in spans:
        inside = 0.0
        for c, d in cov:
            lo, hi = max(a, c), min(b, d)
            if hi > lo:
                inside += hi - lo
        total += max(0.0, (b - a) - inside)
    return total


def _merge_spans(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def guarded_transcript(raw: list[dict], speech: list[tuple[float, float]], duration_s: float, model: str,
                       language: str | None, guards: SpeechGuards | None = DEFAULT_GUARDS,
                       english_only: bool = False) -> Transcript:
    """Transcript of decoded segments after ``screen_segments``, with the VAD regions ``speech`` (seconds),
    their sum and the untranscribed seconds (speech no kept segment covers)."""
    kept, rejected = screen_segments(raw, guards)
    out = _transcript(kept, duration_s, model, language)
    # the stretch each kept segment was decoded from (before word times were refined: ``tools.signals.word_times``)
    covered = _merge_spans([(float(s.get("whisper_start", s["start"])), float(s.get("whisper_end", s["end"])))
                            for s in kept])
    out.speech_s = round(sum(b - a for a, b in speech), 3)
    out.speech_regions = [(round(a, 3), round(b, 3)) for a, b in speech]
    out.untranscribed_s = round(_uncovered_s(speech, covered), 3)
    out.rejected, out.english_only = rejected, english_only
    return out


def _transcript(raw_segments, duration_s: float, model: str, language: str | None) -> Transcript:
    """Transcript of raw ASR segments, each split into utterances at pauses (``split_utterances``);
    a segment without word timestamps stays whole. Ids: utterances ``s<n>``, words ``w<n>.<k>``."""
    segments = []
    for seg in raw_segments:
        timed = [w for w in seg["words"] if w.get("start") is not None and w.get("end") is not None]
        groups = split_utterances(timed) if timed else [[]]
        for group in groups:
            i = len(segments)
            words = [Word(id=f"w{i}.{j}", text=str(w["word"]).strip(), start_s=round(float(w["start"]), 3),
                          end_s=round(float(w["end"]), 3),
                          probability=float(min(1.0, max(0.0, w.get("probability", w.get("score", 1.0)) or 0.0))))
                     for j, w in enumerate(group)]
            whole = len(groups) == 1
            segments.append(TranscriptSegment(
                id=f"s{i}",
                start_s=round(float(seg["start"]), 3) if whole else words[0].start_s,
                end_s=round(float(seg["end"]), 3) if whole else words[-1].end_s,
                text=str(seg["text"]).strip() if whole else " ".join(w.text for w in words),
                words=words))
    return Transcript(language=language, duration_s=duration_s, model=model, segments=segments)
