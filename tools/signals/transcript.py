"""Whisper's hallucination guards, and the warnings a transcript carries.

A decoder (``tools.perception.asr``) yields raw segments with word timestamps and per-window scores. Here they
are screened by ``SpeechGuards`` (Whisper's own thresholds plus repetition and a joint log-probability
and word-probability guard, fitted in ``studies.asr``); ``tools.signals.utterances`` splits the kept ones into
utterances at pauses and measures them against the voice-activity regions, so speech that was not
transcribed can be counted and warned about (``speech_warning``).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import numpy as np

from tools.core.schema import RejectedSegment, Transcript


@dataclass(frozen=True)
class SpeechGuards:
    """Thresholds that decide whether a recognised segment was really spoken (``screen_segments``).

    Whisper hallucinates fluent text on speech it cannot read (another language for an English-only
    model, singing, noise). The first three are Whisper's own decoding thresholds (Radford et al., 2022,
    section 4.5; ``logprob_threshold``, ``compression_ratio_threshold`` and ``no_speech_threshold`` in
    openai/whisper and faster-whisper), applied here after decoding. ``min_word_probability`` (0: off)
    and the joint pair were chosen on the dev split by ``python -m studies.asr --fit``: the fewest invented
    words on EMO-DB German speakers 03-11 while at most 0.5 % of the words of seven real English recordings
    are rejected and the WER of RAVDESS English dialogues (actors 1-18) does not rise (``evals/RESULTS.md``,
    section 8), for the default decoder (temperature 0) and, separately, for the temperature fallback. ``max_repeats`` follows Whisper's looping failure (the same phrase three or more times).

    Attributes:
        min_avg_logprob: a segment whose mean token log-probability is lower is rejected.
        max_compression_ratio: zlib compression ratio of a segment's text above which it is repetitive.
        max_no_speech_prob: with ``avg_logprob < min_avg_logprob`` marks a segment as silence.
        min_word_probability: a segment whose mean word probability is lower is rejected.
        max_repeats: the same word n-gram (n = 1..4) repeated this many times in a row rejects a segment;
            so many consecutive segments with the same words are rejected together.
        joint_avg_logprob, joint_word_probability: a segment below both (a doubtful window and doubtful
            words together) is rejected.
        island_gap_s: a segment that passes every guard but whose neighbours in the same stretch of speech
            (the segments before and after it, each at most this many seconds away; at least one of them)
            all failed is rejected too: a fluent fragment alone among rejected ones is what an English-only
            model makes of speech in another language (``evals/RESULTS.md``, section 20). None: off.
            2 s is faster-whisper's ``VadOptions.min_silence_duration_ms``: a shorter pause does not end a
            stretch of speech there either.
    """

    min_avg_logprob: float = -1.0
    max_compression_ratio: float = 2.4
    max_no_speech_prob: float = 0.6
    min_word_probability: float = 0.0
    max_repeats: int = 3
    joint_avg_logprob: float = -0.55
    joint_word_probability: float = 0.7
    island_gap_s: float | None = 2.0


#: Guards on by default, for decoding at temperature 0 only (``tools.perception.asr``), fitted on its dev decodes
#: (``python -m studies.asr --split dev --fit``, ``evals/RESULTS.md`` section 8): the joint pair at -0.55 with
#: a mean word probability of 0.7. The grid's best, 0.75, keeps a real news segment (-0.57, 0.75) by a
#: thousandth; 0.7 leaves it a margin another CPU's decode will not cross. The dev split is indifferent to a
#: mean word probability floor anywhere from 0 to 0.55 (same invented words, same WER); 0.5 sits under every
#: real English segment (lowest 0.58, but for the cut-off "If...") and rejects a fluent invented segment
#: (0.39) that AVX2's kernels keep over the German half of ``tests/data/multilingual.mp3``. ``None`` in their
#: place keeps every segment (the baseline in ``studies.asr``).
DEFAULT_GUARDS = SpeechGuards(min_word_probability=0.5, joint_avg_logprob=-0.55, joint_word_probability=0.7)
#: Guards of greedy decoding (``FasterWhisperASR(beam_size=1)``, ``--asr-beam 1``), a row of the grid of its dev decodes
#: (``python -m studies.asr --split dev --beam 1 --fit``, ``evals/RESULTS.md`` section 60): a mean word probability
#: floor of 0.2 and the joint pair at -0.55 with 0.65, Whisper's own -1.0 log-probability floor: 5.9 invented German
#: words a minute (7.2 for beam search under ``DEFAULT_GUARDS``), only the cut-off "If..." of the real English
#: rejected. The fit's own pick (a 0.65 floor, the joint pair at -0.8 with 0.75: 1.1 a minute) also rejects a real
#: news fragment and leaves three real English lines 0.05 above its floor, too close for a decoder whose output
#: moves between CPUs; a -0.8 log-probability floor rejects the English lines of ``tests/data/multilingual.mp3`` that
#: share a 30-s window with its German reading (the window scores -0.90).
GREEDY_GUARDS = SpeechGuards(min_word_probability=0.2, joint_avg_logprob=-0.55, joint_word_probability=0.65)
#: Guards of the decoder with Whisper's temperature fallback (``FasterWhisperASR(fallback=True)``), fitted on
#: its dev decodes (``python -m studies.asr --split dev --fallback --fit``; ``evals/RESULTS.md`` section 8).
FALLBACK_GUARDS = SpeechGuards(joint_avg_logprob=-0.7, joint_word_probability=0.55)
#: Guards of the batched decoder (``tools.perception.asr.FasterWhisperASR(batch_size=N)``), fitted the same way on
#: its own dev decodes (``python -m studies.asr --split dev --batched 8 --fit``): it decodes at temperature
#: 0 only and scores windows differently, so Whisper's -1.0 log-probability lets through what the
#: temperature fallback would have re-decoded; -0.6 with a mean word probability of 0.45 does not. The
#: island rule is off: it was measured for the default decoder only.
BATCHED_GUARDS = SpeechGuards(min_avg_logprob=-0.6, min_word_probability=0.45, joint_avg_logprob=float("-inf"),
                              joint_word_probability=0.0, island_gap_s=None)
#: Guards of translation (``FasterWhisperASR(task="translate")``): Whisper's own thresholds and the
#: repetition guard, without the joint pair. The joint pair was fitted to catch an English-only model
#: inventing English over speech it cannot read; a translation's tokens score lower by nature. On the
#: dev speakers of ``python -m studies.multilingual`` the default guards left 115 of 167 translated German
#: sentences without text (in a sample of twelve, all eight rejections were the joint pair's, of faithful
#: renderings such as "What are the types that stand under the table?"); these guards leave 12, and the
#: English search finds 0.83 of the sentences instead of 0.31. No island rule (measured for English-only
#: decoding only).
TRANSLATE_GUARDS = SpeechGuards(joint_avg_logprob=float("-inf"), joint_word_probability=0.0, island_gap_s=None)

_TOKEN = re.compile(r"[\w']+")
#: ``segment_failure``'s reason for a segment without a word (silence decoded as punctuation).
NO_WORDS = "no words"


def _repeated_ngram(text: str, times: int) -> str | None:
    """The first word n-gram (n = 1..4) that occurs ``times`` or more times in a row in ``text``, else None."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    for n in range(1, 5):
        for i in range(len(tokens) - n * times + 1):
            gram = tokens[i:i + n]
            if all(tokens[i + k * n:i + (k + 1) * n] == gram for k in range(1, times)):
                return " ".join(gram)
    return None


def compression_ratio(text: str) -> float:
    """Whisper's repetitiveness measure of a text: UTF-8 length over its zlib-compressed length."""
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data)) if data else 0.0


def screen_segments(raw_segments: list[dict], guards: SpeechGuards | None = DEFAULT_GUARDS
                    ) -> tuple[list[dict], list[RejectedSegment]]:
    """Split raw ASR segments into kept and rejected ones by ``guards``.

    The log-probability and no-speech guards use the values faster-whisper reports for the 30 s
    window a segment was decoded in; the compression ratio is computed on the segment's own text (the
    window's ratio also flags several speakers who say the same sentence, which is no decoding failure).
    A run of ``max_repeats`` or more consecutive segments with the same words (a decoding loop) is
    rejected whole.

    Args:
        raw_segments: dicts with ``start``, ``end`` (seconds), ``text``, ``words`` (dicts with
            ``probability``) and, where the backend gives them, ``avg_logprob`` and ``no_speech_prob``.
        guards: thresholds; None keeps everything.

    Returns:
        (kept segments in order, rejected segments with the reason of the first guard that failed).
    """
    if guards is None:
        return list(raw_segments), []
    passed: list[dict] = []
    rejected: list[RejectedSegment] = []

    def reject(seg: dict, reason: str) -> None:
        rejected.append(RejectedSegment(start_s=round(float(seg["start"]), 3), end_s=round(float(seg["end"]), 3),
                                        text=str(seg["text"]).strip(), reason=reason))

    for seg in raw_segments:
        reason = segment_failure(seg, guards)
        if reason is None:
            passed.append(seg)
        else:
            reject(seg, reason)
    kept: list[dict] = []
    i = 0
    while i < len(passed):  # runs of identical consecutive segments: a decoding loop
        words = _TOKEN.findall(str(passed[i]["text"]).lower())
        j = i + 1
        while j < len(passed) and _TOKEN.findall(str(passed[j]["text"]).lower()) == words:
            j += 1
        if j - i >= guards.max_repeats:
            for seg in passed[i:j]:
                reject(seg, f"the same words in {j - i} segments in a row")
        else:
            kept.extend(passed[i:j])
        i = j
    if guards.island_gap_s is not None:
        kept = _reject_islands(kept, rejected, guards.island_gap_s, reject)
    rejected.sort(key=lambda r: r.start_s)
    return kept, rejected


def _reject_islands(kept: list[dict], rejected: list[RejectedSegment], gap_s: float, reject) -> list[dict]:
    """``kept`` without the segments alone among rejected ones (``SpeechGuards.island_gap_s``), which go to
    ``reject``; segments rejected for having no words do not count as neighbours."""
    timeline = sorted([(float(seg["start"]), float(seg["end"]), k) for k, seg in enumerate(kept)]
                      + [(r.start_s, r.end_s, None) for r in rejected if r.reason != NO_WORDS],
                      key=lambda x: (x[0], x[1], x[2] is None, x[2] or 0))  # a kept and a rejected span may be alike
    islands = set()
    for i, (start, end, k) in enumerate(timeline):
        if k is None:
            continue
        near = [n for n in (timeline[i - 1] if i else None, timeline[i + 1] if i + 1 < len(timeline) else None)
                if n is not None and (start - n[1] <= gap_s if n[0] < start else n[0] - end <= gap_s)]
        if near and all(n[2] is None for n in near):
            islands.add(k)
    for k in sorted(islands):
        reject(kept[k], "alone among rejected segments")
    return [seg for k, seg in enumerate(kept) if k not in islands]


def segment_failure(seg: dict, guards: SpeechGuards) -> str | None:
    """Why one raw segment (see ``screen_segments``) fails ``guards`` (the first guard that fails, in
    words), or None when it passes them all."""
    lp, nsp = seg.get("avg_logprob"), seg.get("no_speech_prob")
    probs = [float(p) for w in seg.get("words") or [] if (p := w.get("probability", w.get("score"))) is not None]
    wp = float(np.mean(probs)) if probs else None  # mean word probability
    text = str(seg["text"]).strip()
    if not _TOKEN.search(text):
        return NO_WORDS
    if lp is not None and nsp is not None and nsp > guards.max_no_speech_prob and lp < guards.min_avg_logprob:
        return f"no speech probability {nsp:.2f} > {guards.max_no_speech_prob}"
    if lp is not None and lp < guards.min_avg_logprob:
        return f"mean log-probability {lp:.2f} < {guards.min_avg_logprob}"
    if (cr := compression_ratio(text)) > guards.max_compression_ratio:
        return f"compression ratio {cr:.2f} > {guards.max_compression_ratio}"
    if wp is not None and wp < guards.min_word_probability:
        return f"mean word probability {wp:.2f} < {guards.min_word_probability}"
    if lp is not None and wp is not None and lp < guards.joint_avg_logprob and wp < guards.joint_word_probability:
        return (f"mean log-probability {lp:.2f} < {guards.joint_avg_logprob} with mean word probability "
                f"{wp:.2f} < {guards.joint_word_probability}")
    if (gram := _repeated_ngram(text, guards.max_repeats)) is not None:
        return f"'{gram}' repeated {guards.max_repeats}+ times"
    return None

#: Warn when at least this much detected speech (seconds) and this share of it went untranscribed.
#: Dev split of ``python -m studies.asr``: German dialogues leave 0.69-1.0 of their speech untranscribed,
#: real English recordings under 0.05 and RAVDESS English dialogues 0.03-0.32, except those whose
#: repeated sentences Whisper collapsed into one rejected segment (0.55-0.97).
UNREAD_MIN_S = 3.0
UNREAD_MIN_SHARE = 0.5


def speech_warning(transcript: Transcript) -> str | None:
    """The answer's warning when much detected speech was not transcribed (another language, singing,
    unreadable speech), else None. Thresholds: ``UNREAD_MIN_S`` and ``UNREAD_MIN_SHARE``."""
    unread = transcript.untranscribed_s
    if unread < UNREAD_MIN_S or unread < UNREAD_MIN_SHARE * max(transcript.speech_s, 1e-9):
        return None
    hint = (f"the ASR model ({transcript.model}) is English-only; " if transcript.english_only else "")
    rejected = f", {len(transcript.rejected)} recognised segment(s) rejected as unreliable" if transcript.rejected else ""
    return (f"speech in an unsupported language or unreadable speech: {unread:.0f} s of {transcript.speech_s:.0f} s "
            f"not transcribed{rejected}; {hint}for other languages use --asr-model whisper-base (a multilingual "
            "Whisper: `affectseek models --fetch whisper-base`) or another multilingual Whisper model: English "
            "questions then search its transcript with a multilingual sentence encoder (--asr-task translate "
            "gives Whisper's English text instead)")


def transcript_warnings(transcript: Transcript) -> list[str]:
    """What a user must be told about a transcript: its notes and, when it applies, ``speech_warning``."""
    warning = speech_warning(transcript)
    return list(transcript.notes) + ([warning] if warning else [])
