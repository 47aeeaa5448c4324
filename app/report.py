"""A self-contained HTML report of one answer: ``affectseek ask VIDEO "QUERY" --report out.html``.

One file, no network at view time (styles, script and images inlined): the video's timeline with the
returned moments as bands, one row per person track with its facial expression over time (colour =
AffectNet-8 label, opacity = probability) and the change points of that person's affect timeline
(``tools.signals.timeline``: red bars, the emotions before and after on hover), under it a row each for the
person's voice and words over their speech where they were read (``tools.signals.speech_timeline``), social events and gestures as marks, utterances with the
transcript on hover, a thumbnail strip per moment, and each moment's rationale with links from every
cited evidence item to its place on the timeline, and what the tools could not do on this video
(``Answer.warnings``). An embedded ``<video>`` plays the file from its path relative to the report (the name alone
when they share a folder) and seeks to a moment or evidence item on click.
"""

from __future__ import annotations

import base64
import functools
import json
import os
from pathlib import Path
from urllib.parse import quote

from agents.schema import Answer
from app.table import searched_part
from memory.cache import write_output
from memory.store import VideoIndex
from tools.core.frames import iter_frames
from tools.core.schema import AFFECTNET8
from tools.signals.timeline import PersonTimeline

#: One colour per AffectNet-8 label (colour-blind-safe Okabe-Ito palette plus grey for neutral).
LABEL_COLOURS = {"neutral": "#999999", "happiness": "#E69F00", "sadness": "#0072B2", "surprise": "#56B4E9",
                 "fear": "#CC79A7", "disgust": "#009E73", "anger": "#D55E00", "contempt": "#7F3C8D"}

STYLE = """
body{font:14px system-ui,sans-serif;margin:20px;color:#222;max-width:1100px}
h1{font-size:20px} .meta{color:#555} .warnings{color:#8a4b00}
.timeline{position:relative;border:1px solid #ccc;background:#fafafa;margin:8px 0}
.row{position:relative;height:22px;border-top:1px solid #eee}
.row .label{position:absolute;left:-120px;width:115px;text-align:right;font-size:12px;color:#555;top:3px}
.lane{position:relative;margin-left:120px}
.band{position:absolute;top:0;bottom:0;background:rgba(230,159,0,.28);border:1px solid #E69F00;cursor:pointer}
.cell{position:absolute;top:3px;height:16px}
.mark{position:absolute;top:2px;width:6px;height:18px;margin-left:-3px;background:#333;cursor:pointer}
.turn{position:absolute;top:4px;height:14px;background:#bcd;border:1px solid #89a}
.mark.hit,.cell.hit{outline:3px solid #d00;z-index:2}
.moment{border:1px solid #ddd;padding:8px 12px;margin:10px 0}
.strip img{height:72px;margin-right:4px}
.ev{cursor:pointer;color:#0645ad;text-decoration:underline}
.legend span{display:inline-block;padding:1px 6px;margin-right:4px;color:#fff;font-size:12px}
video{max-width:480px;display:block;margin:8px 0}
.change{position:absolute;top:0;bottom:0;width:3px;margin-left:-1px;background:#d00;cursor:pointer;z-index:1}
.row.grounded{background:#fff4d6} .row.grounded .label{font-weight:bold;color:#222}
.people img{height:56px;margin-right:4px;vertical-align:middle}
"""

SCRIPT = """
const video = document.querySelector('video');
function seek(t){ if(video){ video.currentTime = t; } }
document.querySelectorAll('[data-t]').forEach(el => el.addEventListener('click', e => {
  seek(parseFloat(el.dataset.t));
  document.querySelectorAll('.hit').forEach(x => x.classList.remove('hit'));
  if (el.dataset.target) { const m = document.getElementById(el.dataset.target); if (m) m.classList.add('hit'); }
}));
"""


def json_for_script(value: object) -> str:
    """JSON text safe inside an HTML ``<script>`` element: ``<``, ``>``, ``&``, U+2028 and U+2029 become
    ``\\uXXXX`` escapes (still the same JSON), so no string in it (a file name like
    ``<!--<script>x.mp4``) can end the element or switch the HTML parser's script state."""
    text = json.dumps(value, ensure_ascii=False)
    for ch in "<>&\u2028\u2029":
        text = text.replace(ch, f"\\u{ord(ch):04x}")
    return text


def _pct(t: float, duration: float) -> float:
    return round(100.0 * max(0.0, min(t, duration)) / duration, 3)


def _thumb(video: Path, t: float) -> str:
    import cv2

    frame = next((f for _, f in iter_frames(video, 10.0, max(0.0, t), t + 0.2, max_side=240)), None)
    if frame is None:
        return ""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(frame, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 80])
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode() if ok else ""


def _row(label: str, marks: list[dict], cls: str = "") -> dict:
    return {"label": label, "cls": cls, "marks": marks}


def _mark(cls: str, title: str, style: str, t: float | None = None, id: str | None = None) -> dict:
    return {"cls": cls, "title": title, "style": style, "t": t, "id": id}


def _span_style(start_s: float, end_s: float, d: float) -> str:
    return f"left:{_pct(start_s, d)}%;width:{_pct(end_s, d) - _pct(start_s, d)}%"


def timeline_rows(answer: Answer, index: VideoIndex) -> list[dict]:
    """The timeline's rows, top to bottom: the moments, one per person (expression cells of its tracks and
    the change points of its affect timeline; highlighted for the people the question names, ``Answer.people``),
    each followed by the person's voice and words rows (``_speech_row``) where they have them, the
    index's social events, the moments' evidence, and the utterances; positions in % of the video."""
    d = answer.duration_s
    rows = [_row("moments", [_mark("band", f"{m.emotion} {m.confidence:.2f}", _span_style(m.start_s, m.end_s, d),
                                   m.start_s, f"moment-{i}") for i, m in enumerate(answer.moments)], "moments")]
    faces = {f.id: f for fr in index.faces for f in fr.faces}
    step = 1.0 / index.config.sample_fps
    people: dict[int, list[str]] = {}
    grounded = {p for g in answer.people for p in g.persons}
    for tr in index.tracks:  # one row per person: the tracks of one person across shots share it
        people.setdefault(index.person_of(tr.track_id), []).extend(tr.observation_ids)
    changes = {tl.person: tl.changes for tl in index.timelines}
    speech: dict[int, list[PersonTimeline]] = {}
    for tl in index.speech_timelines:
        speech.setdefault(tl.person, []).append(tl)
    for person in sorted(people.keys() | speech.keys()):
        cells = _change_marks(person, "", changes.get(person, []), d)
        for f in sorted((faces[oid] for oid in people.get(person, [])), key=lambda f: f.t):
            label, p = f.top()
            cells.append(_mark("cell", f"person {person} {f.t:.1f}s {label} {p:.2f}",
                               f"{_span_style(f.t, min(d, f.t + step), d)};background:{LABEL_COLOURS[label]};"
                               f"opacity:{max(0.15, p):.2f}"))
        rows.append(_row(f"person {person}", cells, "grounded" if person in grounded else ""))
        rows.extend(_speech_row(tl, d) for tl in speech.get(person, []))
    rows.append(_row("events", [_mark("mark", f"{e.type}: {e.detail}", f"left:{_pct(e.start_s, d)}%", e.start_s,
                                      f"event-{e.id}") for e in index.events]))
    rows.append(_row("evidence", [_mark("mark", e.detail, f"left:{_pct(e.start_s, d)}%", e.start_s, f"ev-{e.id}")
                                  for m in answer.moments for e in m.evidence]))  # no label's colour: none is meant
    said = {s.id: s.text for s in index.transcript.segments}
    rows.append(_row("speech", [_mark("turn", said.get(u.segment_id, ""), _span_style(u.start_s, u.end_s, d), u.start_s)
                                for u in index.utterances]))
    return rows


def _change_marks(person: int, what: str, changes: list, d: float) -> list[dict]:
    """A change mark per change point of one of ``person``'s timelines (``what``: "", " voice" or " words")."""
    return [_mark("change", f"person {person}{what} changes at {c.t_s:.1f}s: {c.before} -> {c.after} "
                            f"(size {c.magnitude:.2f})", f"left:{_pct(c.t_s, d)}%", c.t_s,
                  f"change-{person}{what.strip()}-{i}") for i, c in enumerate(changes)]


def _speech_row(tl: PersonTimeline, d: float) -> dict:
    """The row of one person's voice or words timeline (``VideoIndex.speech_timelines``): a cell per stretch of
    speech around its middle (up to 1 s each side, at most halfway to the next), coloured by the smoothed reading's
    top label, and the timeline's change points."""
    what = " voice" if tl.modality == "vocal" else " words"
    cells = _change_marks(tl.person, what, tl.changes, d)
    times = tl.times_s
    for i, (t, row) in enumerate(zip(times, tl.smoothed, strict=True)):
        k = max(range(len(AFFECTNET8)), key=row.__getitem__)
        lo = max(t - 1.0, (times[i - 1] + t) / 2 if i else 0.0, 0.0)
        hi = min(t + 1.0, (t + times[i + 1]) / 2 if i + 1 < len(times) else d, d)
        cells.append(_mark("cell", f"person {tl.person}{what} {t:.1f}s {AFFECTNET8[k]} {row[k]:.2f}",
                           f"{_span_style(lo, hi, d)};background:{LABEL_COLOURS[AFFECTNET8[k]]};"
                           f"opacity:{max(0.15, row[k]):.2f}"))
    return _row(f"person {tl.person}{what}", cells)


def moment_views(answer: Answer, video: Path) -> list[dict]:
    """Per moment: its fields, three thumbnails (start, middle, end; data URIs) and its rationale steps
    with the time of each cited evidence item."""
    views = []
    for m in answer.moments:
        at = {e.id: e.start_s for e in m.evidence}
        thumbs = [{"t": t, "src": src} for t in (m.start_s, (m.start_s + m.end_s) / 2, max(m.start_s, m.end_s - 0.1))
                  if (src := _thumb(video, t))]
        steps = [{"modality": s.modality, "text": s.text, "cited": [{"id": i, "t": at[i]} for i in s.evidence_ids]}
                 for s in m.steps]
        views.append({**m.model_dump(include={"start_s", "end_s", "emotion", "affectnet8", "confidence", "rationale",
                                              "change"}),
                      "thumbs": thumbs, "steps": steps})
    return views


def people_views(answer: Answer, index: VideoIndex) -> list[dict]:
    """Per grounded phrase: the words, who it resolved to, rule, confidence, detail and the people's face
    thumbnails (data URIs read from the index's ``thumbs/``)."""
    views = []
    for g in answer.people:
        thumbs = []
        for rel in g.thumbnails:
            path = index.dir / rel
            if path.is_file():
                thumbs.append("data:image/jpeg;base64," + base64.b64encode(path.read_bytes()).decode())
        views.append({"phrase": g.phrase, "who": g.who,
                      "rule": g.rule, "confidence": g.confidence, "detail": g.detail, "thumbs": thumbs})
    return views


@functools.cache
def _template():
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("app", "templates"), autoescape=select_autoescape(["html", "j2"]))
    return env.get_template("report.html.j2")


def video_link(video: Path, out: Path) -> tuple[str, str]:
    """Where the report ``out`` finds ``video``: its path relative to the report's folder (``/`` between parts) and
    that path as the ``src`` of the report's ``<video>`` (each part percent-quoted), so the page plays it while both
    stay where they were written, or wherever they move together; the file name alone when no relative path exists
    (another drive)."""
    try:
        parts = Path(os.path.relpath(video, out.resolve().parent)).parts
    except ValueError:
        parts = (video.name,)
    return "/".join(parts), "/".join(quote(part) for part in parts)


def render_report(answer: Answer, index: VideoIndex, out: str | os.PathLike) -> Path:
    """Write the HTML report of ``answer`` (with the index's tracks, events and utterances) to ``out``.

    Rendered from ``app/templates/report.html.j2`` with Jinja2's HTML autoescaping; the answer is
    embedded as JSON (``json_for_script``). Raises ``memory.cache.OutputError`` when ``out`` cannot be
    written.
    """
    out = Path(out)
    video = Path(answer.video).resolve()
    video_rel, video_src = video_link(video, out)
    doc = _template().render(
        answer=answer, searched=searched_part(answer.window, answer.duration_s), video_name=video.name,
        video_rel=video_rel, video_src=video_src,
        beside=video.parent == out.resolve().parent, colours=LABEL_COLOURS, style=STYLE, script=SCRIPT,
        rows=timeline_rows(answer, index), moments=moment_views(answer, video), people=people_views(answer, index),
        answer_json=json_for_script(answer.model_dump(mode="json")))
    write_output(out, doc.encode())
    return out
