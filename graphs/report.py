"""A self-contained HTML report of one answer: ``python -m agents.run VIDEO "QUERY" --report out.html``.

One file, no network at view time (styles, script and images inlined): the video's timeline with the
returned moments as bands, one row per person track with its facial expression over time (colour =
AffectNet-8 label, opacity = probability), social events and gestures as marks, speech turns with the
transcript on hover, a thumbnail strip per moment, and each moment's rationale with links from every
cited evidence item to its place on the timeline. When the video file sits beside the report, an
embedded ``<video>`` seeks to a moment or evidence item on click.
"""

from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path
from urllib.parse import quote

from agents.schema import Answer
from memory.cache import write_output
from memory.indexer import VideoIndex
from memory.video import iter_frames

#: One colour per AffectNet-8 label (colour-blind-safe Okabe-Ito palette plus grey for neutral).
LABEL_COLOURS = {"neutral": "#999999", "happiness": "#E69F00", "sadness": "#0072B2", "surprise": "#56B4E9",
                 "fear": "#CC79A7", "disgust": "#009E73", "anger": "#D55E00", "contempt": "#7F3C8D"}

STYLE = """
body{font:14px system-ui,sans-serif;margin:20px;color:#222;max-width:1100px}
h1{font-size:20px} .meta{color:#555}
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


def render_report(answer: Answer, index: VideoIndex, out: str | os.PathLike) -> Path:
    """Write the HTML report of ``answer`` (with the index's tracks, events and turns) to ``out``."""
    out = Path(out)
    d = answer.duration_s
    esc = html.escape
    video = Path(answer.video).resolve()
    beside = video.parent == out.resolve().parent
    rows = []

    def row(label: str, inner: str, cls: str = "") -> str:
        return f'<div class="row {cls}"><div class="label">{esc(label)}</div>{inner}</div>'

    bands = "".join(
        f'<div class="band" id="moment-{i}" data-t="{m.start_s}" title="{esc(m.emotion)} {m.confidence:.2f}" '
        f'style="left:{_pct(m.start_s, d)}%;width:{_pct(m.end_s, d) - _pct(m.start_s, d)}%"></div>'
        for i, m in enumerate(answer.moments))
    rows.append(row("moments", bands, "moments"))
    faces = {f.id: f for fr in index.affect for f in fr.faces}
    step = 1.0 / index.config.sample_fps
    for tr in index.tracks:
        cells = []
        for oid in tr.observation_ids:
            f = faces[oid]
            label, p = f.top()
            cells.append(f'<div class="cell" title="person {tr.track_id} {f.t:.1f}s {label} {p:.2f}" '
                         f'style="left:{_pct(f.t, d)}%;width:{_pct(min(d, f.t + step), d) - _pct(f.t, d)}%;'
                         f'background:{LABEL_COLOURS[label]};opacity:{max(0.15, p):.2f}"></div>')
        rows.append(row(f"person {tr.track_id}", "".join(cells)))
    marks = "".join(
        f'<div class="mark" id="event-{e.id}" data-t="{e.start_s}" title="{esc(e.type)}: {esc(e.detail)}" '
        f'style="left:{_pct(e.start_s, d)}%"></div>' for e in index.events)
    rows.append(row("events", marks))
    ev_marks = "".join(
        f'<div class="mark" id="ev-{esc(e.id)}" data-t="{e.start_s}" title="{esc(e.detail)}" '
        f'style="left:{_pct(e.start_s, d)}%;background:#0072B2"></div>'
        for m in answer.moments for e in m.evidence)
    rows.append(row("evidence", ev_marks))
    turns = "".join(
        f'<div class="turn" data-t="{u.start_s}" title="{esc(next((s.text for s in index.transcript.segments if s.id == u.segment_id), ""))}" '
        f'style="left:{_pct(u.start_s, d)}%;width:{_pct(u.end_s, d) - _pct(u.start_s, d)}%"></div>'
        for u in index.turns)
    rows.append(row("speech", turns))
    timeline = f'<div class="timeline"><div class="lane">{"".join(rows)}</div></div>'

    moments = []
    for i, m in enumerate(answer.moments):
        strip = "".join(f'<img alt="frame at {t:.1f}s" src="{src}">' for t in (m.start_s, (m.start_s + m.end_s) / 2,
                                                                                  max(m.start_s, m.end_s - 0.1))
                        if (src := _thumb(video, t)))
        steps = "".join(
            f"<li><b>{esc(s.modality)}</b>: {esc(s.text)} "
            + " ".join(f'<span class="ev" data-t="{next(e.start_s for e in m.evidence if e.id == eid)}" '
                       f'data-target="ev-{esc(eid)}">[{esc(eid)}]</span>' for eid in s.evidence_ids) + "</li>"
            for s in m.steps)
        moments.append(
            f'<div class="moment"><span class="ev" data-t="{m.start_s}" data-target="moment-{i}">#{i + 1} '
            f'{m.start_s:.1f}-{m.end_s:.1f} s</span> <b>{esc(m.emotion)}</b> ({m.confidence:.2f})'
            f'<p>{esc(m.rationale)}</p><div class="strip">{strip}</div><ol>{steps}</ol></div>')
    legend = "".join(f'<span style="background:{c}">{k}</span>' for k, c in LABEL_COLOURS.items())
    video_tag = f'<video controls preload="metadata" src="{esc(quote(video.name))}"></video>' if beside else \
        f'<p class="meta">(put {esc(video.name)} beside this file to play it here)</p>'
    answer_json = json_for_script(answer.model_dump(mode="json"))
    doc = f"""<!doctype html><html><head><meta charset="utf-8"><title>affectseek: {esc(answer.query)}</title>
<style>{STYLE}</style></head><body>
<h1>{esc(answer.query)}</h1>
<p class="meta">{esc(video.name)}, {d:.1f} s; {esc(answer.message)}; embedder {esc(answer.embedder)}, llm {esc(answer.llm)}</p>
{video_tag}
<div class="legend">{legend}</div>
{timeline}
{"".join(moments) or f'<p>{esc(answer.message)}</p>'}
<script type="application/json" id="answer">{answer_json}</script>
<script>{SCRIPT}</script></body></html>"""
    write_output(out, doc.encode())
    return out
