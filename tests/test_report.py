"""The HTML report in a real headless browser (Debian's chromium driven by playwright, no download)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from app.ask import main
from tests.conftest import SAMPLE

pytestmark = pytest.mark.slow
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def report(tmp_path_factory, cache_root):
    if not Path(CHROMIUM).exists():
        pytest.skip("no chromium on this machine (apt-get install chromium; CI installs it)")
    d = tmp_path_factory.mktemp("report")
    shutil.copy(SAMPLE, d / SAMPLE.name)  # the video beside the report, so moments can play
    assert main([str(d / SAMPLE.name), "when is the performer most worked up?", "--report", str(d / "r.html"),
                 "--json", str(d / "a.json"), "--cache-dir", str(cache_root), "--quiet"]) == 0
    return d


def test_report_loads_places_bands_and_seeks_the_video(report):
    from playwright.sync_api import sync_playwright

    answer = json.loads((report / "a.json").read_text())
    assert answer["moments"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((report / "r.html").as_uri())
        page.wait_for_function("document.querySelector('video').readyState >= 1", timeout=15000)
        d = answer["duration_s"]
        for i, m in enumerate(answer["moments"]):
            left = float(page.eval_on_selector(f"#moment-{i}", "e => parseFloat(e.style.left)"))
            assert left == pytest.approx(100 * m["start_s"] / d, abs=0.01)
        m = answer["moments"][0]
        page.click("#moment-0")
        assert page.evaluate("document.querySelector('video').currentTime") == pytest.approx(m["start_s"], abs=0.05)
        first = m["evidence"][0]
        page.click(f".ev[data-target='ev-{first['id']}']")
        assert page.evaluate("document.querySelector('video').currentTime") == pytest.approx(first["start_s"], abs=0.05)
        mark = "#ev-" + first["id"].replace(".", "\\.")
        assert page.eval_on_selector(mark, "e => e.classList.contains('hit')")
        shot = page.screenshot()
        browser.close()
    assert errors == []
    from io import BytesIO

    from PIL import Image

    pixels = np.asarray(Image.open(BytesIO(shot)).convert("L"), dtype=float)
    assert pixels.std() > 20  # not a blank page


def test_report_of_a_hostile_file_name_still_runs_its_script(tmp_path, cache_root):
    """A name like ``<!--<script>x.mp4`` must neither end the embedded JSON nor swallow the page's script."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.skip("no chromium on this machine (apt-get install chromium; CI installs it)")
    name = "<!--<script>x&\u2028.mp4"
    shutil.copy(SAMPLE, tmp_path / name)
    assert main([str(tmp_path / name), "when is the performer most worked up?", "--report", str(tmp_path / "r.html"),
                 "--json", str(tmp_path / "a.json"), "--cache-dir", str(cache_root), "--quiet"]) == 0
    answer = json.loads((tmp_path / "a.json").read_text())
    assert answer["moments"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((tmp_path / "r.html").as_uri())
        page.wait_for_function("document.querySelector('video').readyState >= 1", timeout=15000)
        embedded = page.evaluate("JSON.parse(document.getElementById('answer').textContent)")
        page.click("#moment-0")  # seeking needs the page's own script
        t = page.evaluate("document.querySelector('video').currentTime")
        scripts = page.evaluate("document.scripts.length")
        browser.close()
    assert errors == [] and scripts == 2
    assert embedded["video"].endswith(name) and embedded["moments"] == answer["moments"]
    assert t == pytest.approx(answer["moments"][0]["start_s"], abs=0.05)


def test_a_report_written_away_from_its_video_plays_it_by_its_relative_path(tmp_path, cache_root):
    """Report and video in different folders: the page's ``<video>`` still loads the file and seeks on a click."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.skip("no chromium on this machine (apt-get install chromium; CI installs it)")
    (tmp_path / "clips x").mkdir()
    video = tmp_path / "clips x" / SAMPLE.name
    shutil.copy(SAMPLE, video)
    report = tmp_path / "out" / "r.html"
    report.parent.mkdir()
    assert main([str(video), "when is the performer most worked up?", "--report", str(report),
                 "--json", str(tmp_path / "a.json"), "--cache-dir", str(cache_root), "--quiet"]) == 0
    start = json.loads((tmp_path / "a.json").read_text())["moments"][0]["start_s"]
    assert f"(plays ../clips x/{SAMPLE.name}, relative to this file" in report.read_text()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page()
        page.goto(report.as_uri())
        page.wait_for_function("document.querySelector('video').readyState >= 1", timeout=15000)
        page.click("#moment-0")
        t = page.evaluate("document.querySelector('video').currentTime")
        browser.close()
    assert t == pytest.approx(start, abs=0.05)


def test_report_names_the_questions_person_with_a_thumbnail_and_highlights_the_row(report):
    answer = json.loads((report / "a.json").read_text())
    [g] = answer["people"]
    assert g["phrase"] == "the performer" and g["rule"] == "speaking" and g["thumbnails"]
    page = (report / "r.html").read_text()
    person = g["persons"][0]
    assert f"<b>the performer</b> -> person {person} (speaking" in page
    assert page.count('<img src="data:image/jpeg;base64,') >= 1 and 'alt="the performer"' in page
    assert f'<div class="row grounded"><div class="label">person {person}</div>' in page


def test_inspect_lists_the_events_the_report_draws_under_the_same_ids(report, cache_root, tmp_path):
    """The report draws the index's events (``event-e<i>``); ``inspect`` lists the same events under the same ids, and
    its denser pass over the whole video apart, as ``f<i>`` at the rate asked."""
    from app.inspect import main as inspect_main

    out = tmp_path / "inspect.json"
    assert inspect_main([str(report / SAMPLE.name), "--json", str(out), "--cache-dir", str(cache_root),
                         "--events-fps", "4"]) == 0
    got = json.loads(out.read_text())
    html = (report / "r.html").read_text()
    drawn = [e for e in got["events"] if f'id="event-{e["id"]}"' in html]
    assert got["events"] and drawn == got["events"] and all(e["id"].startswith("e") for e in got["events"])
    assert {"pointing", "open_palm"} <= {e["type"] for e in got["events"]}  # the performer's gestures, 5-8 s
    dense = got["events_at_fps"]
    assert dense["fps"] == 4 and dense["events"] and all(e["id"].startswith("f") for e in dense["events"])
