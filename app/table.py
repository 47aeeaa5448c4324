"""The answer on the terminal (``affectseek ask``): the question's intent and people, a table of the moments
(start-end, emotion, confidence, rationale), warnings, LLM use and a multiple-choice answer's reasoning.
"""

from __future__ import annotations

from pathlib import Path


def fmt_time(s: float) -> str:
    """Seconds -> mm:ss.s (rounded to a tenth first, so 59.97 s is 01:00.0, not 00:60.0)."""
    tenths = round(s * 10)
    return f"{tenths // 600:02d}:{tenths % 600 / 10:04.1f}"


def searched_part(window: tuple[float, float] | None, duration_s: float) -> str | None:
    """What the answer says it searched when the question names a part of the video: ``window`` (seconds, the part
    searched, ``Answer.window``) as mm:ss.s, "the part the question names", or "the whole video" where that part
    covers all of a ``duration_s``-second video (a part named by its position alone in a video shorter than
    ``tools.signals.time_vague.VAGUE_MIN_S``: ``covers_the_video``); None when the question names no part."""
    from tools.signals.time_vague import covers_the_video

    if window is None:
        return None
    what = "the whole video" if covers_the_video(window, duration_s) else "the part the question names"
    return f"{fmt_time(window[0])}-{fmt_time(window[1])} ({what})"


def fallback_summary(answer) -> str:
    """One line saying which roles the offline reasoner answered because ``--llm`` failed, and why first."""
    tasks = list(dict.fromkeys(f.split(":", 1)[0] for f in answer.llm_fallbacks))
    first = answer.llm_fallbacks[0].split(":", 1)[1].strip()
    if any("provider down since" in f for f in answer.llm_fallbacks):
        head = f"--llm {answer.llm} was unavailable; the offline reasoner answered instead"
    else:
        head = f"--llm {answer.llm} failed for {len(tasks)} role(s); the offline reasoner answered those"
    return f"{head} ({', '.join(tasks)}); first failure: {first}"


def print_answer(answer, console) -> None:
    """Print ``answer`` (an ``agents.schema.Answer``) on ``console`` (a ``rich.console.Console``): the question and
    its intent, the grounded people, a table of the moments, the warnings, the LLM's fallbacks and usage, the
    chosen option of a multiple-choice question and a closing line."""
    from rich.table import Table

    from tools.core.terminal import markup_safe as safe

    intent = answer.intent
    console.print(f"[bold]{safe(answer.query)}[/bold]  ({safe(Path(answer.video).name)}, {answer.duration_s:.1f} s)")
    asked = f" {answer.labels}={intent.target_labels}" if answer.labels != "AffectNet-8" else ""
    console.print(safe(f"intent: emotions={intent.target_emotions or ['any']}{asked} people={intent.people or ['-']} "
                       f"cues={intent.cues}  | embedder={answer.embedder} llm={answer.llm} rounds={answer.rounds}"))
    for g in answer.people:
        console.print(safe(f"people: {g.phrase} -> {g.who} ({g.rule}, confidence {g.confidence:.2f}: {g.detail})"))
    if (searched := searched_part(answer.window, answer.duration_s)) is not None:
        console.print(f"searched: {searched}")
    if not answer.moments:
        console.print(f"[yellow]{safe(answer.message)}[/yellow]")
        return
    table = Table(show_lines=False)
    for col in ("#", "start-end", "emotion", "conf", "rationale"):
        table.add_column(col, overflow="fold")
    for i, m in enumerate(answer.moments, 1):
        table.add_row(str(i), f"{fmt_time(m.start_s)}-{fmt_time(m.end_s)}", m.emotion, f"{m.confidence:.2f}",
                      safe(m.rationale))
    console.print(table)
    for w in answer.warnings:
        console.print(f"[yellow]warning: {safe(w)}[/yellow]")
    if answer.llm_fallbacks:
        console.print(f"[yellow]warning: {safe(fallback_summary(answer))}[/yellow]")
    if answer.llm_usage.get("calls"):
        u = answer.llm_usage
        console.print(safe(f"llm {answer.llm}: {u['calls']:.0f} calls, {u['images']:.0f} images, "
                           f"estimated cost ${u['cost_usd']:.4f}"))
    if answer.choice is not None:
        from agents.choice import letter

        c = answer.choice
        console.print(safe(f"answer: ({letter(c.option)}) {c.text}"), style="bold")
        for step in c.steps:
            flag = ", external knowledge" if step.external_knowledge else ""
            cites = f" [{', '.join(step.evidence_ids)}]" if step.evidence_ids else ""
            console.print(safe(f"  - {step.modality}{flag}: {step.text}{cites}"))
    console.print(f"{safe(answer.message)}; {answer.candidates_considered} candidates checked, "
                  f"{answer.candidates_rejected} rejected; total {answer.timings_s['total']:.1f} s")
