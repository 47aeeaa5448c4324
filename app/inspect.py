"""Look at what the perception tools saw: ``affectseek inspect VIDEO [--json out.json]``.

Indexes the video (or reads the cached index) and prints its shots, person tracks (with thumbnail paths), transcript
segments with their voice and speaker, and two event lists: the index's events (``e<i>``, read at the index's frame
rate: the ones the localizer searches and the HTML report draws, under the same ids), and a denser pass of
faces, gaze and gestures over the whole video at ``--events-fps`` (cached per chunk; ``f<i>``), so a person can check
the tools by eye. ``--json`` also holds each person's affect timeline (``tools.signals.timeline``: smoothed readings,
baseline, salience, change points).
"""

from __future__ import annotations

import argparse
import sys

from tools.core.argtypes import CommandParser, number


def track_expression_series(index) -> dict[str, list[dict]]:
    """Per track, time-ordered AffectNet-8 probabilities smoothed over 3 observations (tools.signals.events)."""
    import numpy as np

    from tools.core.schema import AFFECTNET8
    from tools.signals.events import smooth_track_expressions

    faces = {f.id: f for fr in index.faces for f in fr.faces}
    out = {}
    for tr in index.tracks:
        obs = [faces[i] for i in tr.observation_ids]
        probs = smooth_track_expressions(np.array([[o.expression[k] for k in AFFECTNET8] for o in obs]))
        out[str(tr.track_id)] = [{"t": o.t, **{k: round(float(p), 4) for k, p in zip(AFFECTNET8, row, strict=True)}}
                                 for o, row in zip(obs, probs, strict=True)]
    return out


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The command's parser: its own options, then every index setting and the cache root as ``ask`` has them
    (``graphs.flags``), so it reads the index ``ask`` builds with the same flags, variables and config file."""
    from graphs.flags import add_setting_flags
    from memory.index_config import IndexSettings

    p = CommandParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("video")
    p.add_argument("--json", metavar="OUT", help="write tracks, shots, transcript and events as JSON")
    p.add_argument("--config", metavar="TOML", default=None,
                   help="settings file (default $AFFECTSEEK_CONFIG); flags and AFFECTSEEK_* variables override it")
    p.add_argument("--events-fps", type=number(0, 30, lo_open=True), default=2.0,
                   help="frame rate of the denser face/gaze/gesture pass over the whole video, listed beside the "
                        "index's events (default 2)")
    add_setting_flags(p, ("cache_dir", *IndexSettings.model_fields))
    return p


def whole_video_events(index, fps: float) -> list:
    """Expression changes and the social timeline (gaze, pointing, addressing) over the whole video,
    from the engine's observations at ``fps`` (stored per chunk), numbered ``f<i>`` in time order (``e<i>`` are the
    index's own events, ``VideoIndex.events``, which the localizer searches and the report draws)."""
    from agents.evidence import index_sure_speakers
    from indexing.observe import observe_span
    from tools.signals.events import expression_changes, social_timeline
    from tools.signals.social import social_frames

    stored, _ = observe_span(index, fps, 0.0, index.info.duration_s)
    frames = social_frames([fr for fr, _ in stored], index.face_person)
    events = sorted(expression_changes(index.faces, index.tracks)
                    + social_timeline(frames, index.transcript.segments, 0.0, index.info.duration_s,
                                      max_gap_s=1.5 / fps, known_speakers=index.segment_speakers,
                                      sure_speakers=index_sure_speakers(index)),
                    key=lambda e: (e.start_s, e.type))
    return [e.model_copy(update={"id": f"f{i}"}) for i, e in enumerate(events)]


def print_index(con, video: str, index, events: list, events_fps: float) -> None:
    """Shots, person tracks, transcript (kept and rejected segments), warnings, the index's events and ``events``
    (``whole_video_events`` at ``events_fps``), on ``con``."""
    from rich.table import Table

    from tools.core.media import video_warnings
    from tools.core.terminal import markup_safe as safe
    from tools.signals.transcript import transcript_warnings

    cuts = f"shot cuts at {', '.join(f'{c:.2f}' for c in index.cuts)} s" if index.cuts else "no shot cuts"
    con.print(f"[bold]{safe(video)}[/bold]: {index.info.duration_s:.1f} s, {cuts}")
    if index.tracks:
        t = Table(title="person tracks (faces at the index frame rate)")
        for col in ("track", "person", "shot", "first s", "last s", "faces", "appearance", "thumbnail"):
            t.add_column(col)
        for tr in index.tracks:
            t.add_row(str(tr.track_id), "-" if tr.person is None else str(tr.person), str(tr.shot),
                      f"{tr.first_s:.1f}", f"{tr.last_s:.1f}", str(len(tr.observation_ids)),
                      tr.appearance.text.removeprefix("read as ") if tr.appearance else "-", tr.thumbnail or "-")
        con.print(t)
        people = {tr.person for tr in index.tracks if tr.person is not None}
        if people:
            con.print(f"{len(index.tracks)} tracks, {len(people)} people (tracks re-identified across shots by "
                      "face identity)")
        con.print(f"thumbnails are under {safe(index.dir)}")
    else:
        con.print("no faces found: no person tracks")
    utterance = {u.segment_id: u for u in index.utterances}
    for seg in index.transcript.segments:
        u, who = utterance.get(seg.id), ""
        if u is not None:
            who = f"voice {u.voice if u.voice is not None else '?'}"
            who = f" ({who}, person {u.speaker} by {u.speaker_by})" if u.speaker is not None else f" ({who})"
        translated = f" [English translation of {seg.translated_from} speech]" if seg.translated_from else ""
        con.print(f"  speech {seg.start_s:6.1f}-{seg.end_s:6.1f} s{who}{translated}  {safe(seg.text)}")
    voices = {v.voice for v in index.voices}
    if voices:
        con.print(f"{len(voices)} voice(s) in {len(index.voices)} turns (GE2E voice embeddings, clustered)")
    for rej in index.transcript.rejected:
        con.print(f"  [dim]rejected {rej.start_s:6.1f}-{rej.end_s:6.1f} s  {safe(rej.text)} ({safe(rej.reason)})[/dim]")
    for note in video_warnings(index.info) + transcript_warnings(index.transcript):
        con.print(f"[yellow]warning: {safe(note)}[/yellow]")
    own = f"the index's events (at {index.config.sample_fps:g} fps; searched by the localizer, drawn in the report)"
    for title, listed in ((own, index.events), (f"events at {events_fps:g} fps over the whole video", events)):
        if not listed:
            con.print(f"{title}: none (no gaze, gesture, speech or expression event between tracks was found)")
            continue
        con.print(f"{title}:")
        for e in listed:
            con.print(f"  event {e.id} {e.type:<18} {e.start_s:6.1f}-{e.end_s:6.1f} s  {safe(e.detail)} "
                      f"(conf {e.confidence:.2f})")


def main(argv: list[str] | None = None, prog: str = "affectseek inspect") -> int:
    """Run the ``inspect`` command; returns the exit code, as ``ask`` gives it: 2 for bad input (an unusable video, a
    missing GPU, a ``--json`` that cannot be written, checked before any work), 1 when a backend cannot load or the
    output fails to be written."""
    args = build_parser(prog).parse_args(argv)
    from graphs.settings import SettingsError, settings_from_args

    try:
        settings = settings_from_args(args, args.config)
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from tools.core.runtime import DeviceError, configure_runtime

    configure_runtime(settings.cache_dir)
    from rich.console import Console

    from app.outputs import outputs_problem
    from indexing.build import open_index
    from memory.cache import OutputError, json_bytes, write_output, writes_to_stdout
    from tools.core.media import VideoError
    from tools.core.registry import BackendUnavailableError
    from tools.core.terminal import printable

    if (problem := outputs_problem([("--json", args.json)], [args.video])) is not None:
        print(printable(problem), file=sys.stderr)
        return 2
    try:
        settings.check_device()  # a missing GPU is one line, as for ask and batch
        index = open_index(args.video, settings.index_config(), settings.cache_dir)
    except (VideoError, DeviceError) as exc:
        print(printable(f"error: {exc}"), file=sys.stderr)
        return 2
    except BackendUnavailableError as exc:
        print(printable(f"error: {exc}"), file=sys.stderr)
        return 1
    events = whole_video_events(index, args.events_fps)
    print_index(Console(stderr=bool(args.json) and writes_to_stdout(args.json)), args.video, index, events,
                args.events_fps)
    if args.json:
        try:  # a user-named output, as ask's --json: "-" is standard output, the file gets the usual permissions
            write_output(args.json, json_bytes({
                "video": args.video, "duration_s": index.info.duration_s, "cuts": index.cuts, "tracks": index.tracks,
                "expression": track_expression_series(index), "transcript": index.transcript,
                "utterances": index.utterances, "voices": index.voices, "events": index.events,
                "events_at_fps": {"fps": args.events_fps, "events": events},
                "timelines": index.timelines, "speech_timelines": index.speech_timelines}))
        except OutputError as exc:
            print(printable(f"error: {exc}"), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
