"""The README's measured figures are the committed result files' (``evals.figures``)."""

from __future__ import annotations

import re

from evals.figures import FIGURES, RESULTS, share, table
from evals.speed import BENCHES, SPEED, speed_table
from tests.conftest import REPO


def _section(title: str) -> str:
    text = (REPO / "README.md").read_text()
    start = text.index(f"## {title}\n")
    return text[start:text.index("\n## ", start + 1)]


def _evaluation_section() -> str:
    return _section("Evaluation")


def test_the_readme_shows_the_table_the_result_files_give():
    assert table() in _evaluation_section()


def test_every_figure_in_the_readme_table_names_a_committed_result_file():
    assert FIGURES and all((RESULTS / f.file).is_file() for f in FIGURES)
    rows = [line for line in _evaluation_section().splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == len(FIGURES)
    assert all(re.search(r"`[a-z0-9_]+\.json` \|$", row) for row in rows)


def test_the_readme_shows_the_speed_table_the_bench_files_give():
    assert SPEED and all((BENCHES / f.file).is_file() for f in SPEED)
    assert speed_table() in _section("Speed")


def test_a_share_is_shown_with_an_interval_around_it():
    """58 of 96 queries right: 0.604, and a 95 % interval about +-0.1 around it (normal approximation:
    1.96 sqrt(0.604 x 0.396 / 96) = 0.098)."""
    shown = share(0.6042, 96)
    value, low, high = (float(x) for x in re.findall(r"\d\.\d{3}", shown))
    assert value == 0.604 and low < value < high
    assert abs((high - low) / 2 - 0.098) < 0.01
