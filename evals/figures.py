"""The README's table of measured figures, rendered from the committed result files.

    python -m evals.figures        # prints the table that README.md carries under "Evaluation"

Each row of ``FIGURES`` names a file in ``evals/results`` and reads its figure from it; a share of items
(right / n) gets a 95 % percentile bootstrap interval (``evals.metrics.bootstrap_interval``: over items, or
the interval the file itself stores where it resampled people or speakers). ``tests/test_readme_figures.py``
checks that README.md shows exactly this table, so a README figure cannot drift from its file.
``evals.speed`` does the same for the speed and memory figures of the benchmark files in ``benches``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from evals.figure_cells import (
    WITH_PREVIOUS,
    Figure,
    answered_cell,
    baselines,
    calibration_cell,
    change,
    change_cell,
    cremad_cv,
    faces,
    long_cell,
    per_clip,
    recorded,
    runs_cell,
    salience,
    share,
    stored,
)
from evals.question_figures import QUESTION_FIGURES

RESULTS = Path(__file__).with_name("results")


#: The nested figures of ``calibration_labels_dev.json`` (``studies.label_calibration.nested``).
NESTED = "chosen without the set, fitted without it (nested)"
#: Queries of the composed test benches (``evals/RESULTS.md`` sections 4 and 5): the joined form's 96, the
#: long form's 8.
JOINED_QUERIES, LONG_QUERIES = 96, 8

FIGURES: tuple[Figure, ...] = (
    Figure("facial expression per image, faceres+face8 (face8; fer as shipped)",
           "CK+ test subjects, posed stills, 297 (read 7 times: now dev)", "faces_test.json", faces("ckplus")),
    Figure("", "RAF-DB test, web stills, 3,068 (read 5 times: now dev)", "faces_test.json", faces("rafdb")),
    Figure("", "FER2013 PrivateTest, grey web stills, 3,589 (read 3 times, each when a reader was done)",
           "faces_test.json", faces("fer2013")),
    Figure("facial expression per **recorded** clip, faceres+face8, mean over the frames at 4 fps (previous weights; "
           "face8, fer)", "20 clips of 11 people: MEAD, RAVDESS, web video (dev; sections 25, 33, 55)",
           "recorded_faces_dev.json", recorded),
    Figure("facial expression per **recorded** clip, faceres+face8, mean over the frames at 8 fps (second training seed; "
           "previous weights)", "CREMA-D, 100 clips of 64 actors, each read by a network trained without its actor "
           "(5-fold cross-validation; dev; section 55)", "recorded_net_dev.json", cremad_cv),
    Figure("facial expression per **recorded** clip, previous faceres+face8, mean over the frames (face8)",
           "CREMA-D, 100 clips of 64 actors never trained or chosen on then (read once; section 34)",
           "recorded_faces_cremad_test.json", per_clip("actor", ("face8",))),
    Figure("right place and emotion on **recorded** video, Joint (previous code)",
           "CREMA-D clips joined 10 per video with their speech, 48 questions (read once; section 34)",
           "recorded_bench_cremad_test.json",
           runs_cell("graph, faceres+face8 (default)", "Joint", "graph, face8 (previous code, f316ebe)")),
    Figure("facial expression per **recorded** clip of new people, faceres+face8, mean over the frames at 4 fps "
           "(face8; fer)", "Javanese acted emotions, 120 clips of 5 people never trained or chosen on (read once here, "
           "section 63; read again by section 133's voice study; dev since section 167)",
           "recorded_faces_javanese_test.json",
           per_clip("person", ("face8", "fer"))),
    Figure("right place and emotion on **recorded** video of new people, Joint (the code when issue 31 was filed, "
           "326be8d)", "the same clips joined 10 per video with their speech, 63 questions (read once; section 63; dev "
           "since section 167)",
           "recorded_bench_javanese_test.json",
           runs_cell("graph, faceres+face8 (default)", "Joint", "graph, face8 (previous code, 326be8d)")),
    Figure("right place and emotion on **recorded** video of new people, one person a video, a face named against "
           "their usual reading, Joint (the code before, 40fc5be)", "the same clips joined 12 per video, each video "
           "one person's, 54 questions (read once for this; section 166; the people's third read; dev since section "
           "167)",
           "departure_labels_test.json", lambda d: runs_cell("now", "Joint", "previous code")(d["by_person"])),
    Figure("confidence's calibration error (ECE) over judged candidates, an intercept per judged label, fitted without "
           "the set, its C chosen on these held-out figures (nested: form and C chosen without the set too; before: "
           "Platt scaling fitted on composed video)", "**recorded** Javanese development people, 264 candidates of 63 "
           "questions (dev; section 163)", "calibration_labels_dev.json",
           calibration_cell("javanese", "chosen, held out", "before (the fusion read)", NESTED)),
    Figure("", "**recorded** clips of 20 people (section 25's, RAVDESS actor 05, MAFW), 203 candidates of 52 questions "
           "(dev; section 163)", "calibration_labels_dev.json",
           calibration_cell("recorded", "chosen, held out", "before (the fusion read)", NESTED)),
    Figure("the same, as shipped (before)", "composed joined test form, FER+-agreed mixed faces, new draw (seed 15), "
           "225 candidates of 96 questions (read once; section 163)", "calibration_labels_test15.json",
           calibration_cell("joined_test_seed15", "after", "before")),
    Figure("the calibration as shipped, with whisper8 reading the voice (`--voice-emotion whisper8`)",
           "**recorded** Javanese development people, 280 candidates of 63 questions (dev; section 165)",
           "calibration_whisper8_dev.json", calibration_cell("javanese", "after", "before", "nested")),
    Figure("confidence's calibration error (ECE) of the answered moments, a label named against its person's usual "
           "reading stated by a calibration of its own, fitted on other people (before: as every label)",
           "**recorded** Javanese people one person a video, the 5 read as test in section 166, 226 moments of 54 "
           "questions (dev since then; section 167)", "departed_calibration_dev.json",
           lambda d: answered_cell(d, "javanese_former_test_one_person_a_video")),
    Figure("", "the 5 development people so, 210 moments of 54 questions (dev; section 167)",
           "departed_calibration_dev.json", lambda d: answered_cell(d, "javanese_dev_one_person_a_video")),
    Figure("top moment right, R1@0.5 / Joint (previous code; reading alone)",
           "composed 5-minute needle videos, 2 videos, 8 questions (read once; section 35)", "long_test.json",
           long_cell("5")),
    Figure("", "composed 30-minute video, 12 needles, 7 questions (read once)", "long_test.json", long_cell("30")),
    Figure("", "composed 60-minute video, 20 needles, 7 questions (read once)", "long_test.json", long_cell("60")),
    Figure("", "second draw (seed 2), after frame-accurate cuts: 5 minutes, 2 videos, 8 questions (read once; "
               "section 38)", "long_test_seed2.json", long_cell("5")),
    Figure("", "second draw: 30 minutes, 12 needles, 7 questions (read once)", "long_test_seed2.json", long_cell("30")),
    Figure("", "second draw: 60 minutes, 20 needles, 7 questions (read once)", "long_test_seed2.json", long_cell("60")),
    Figure("", "third draw (seed 4), clips in shots: 5 minutes, 2 videos, 8 questions (read once; section 81)",
           "long_test_seed4.json", long_cell("5")),
    Figure("", "third draw: 30 minutes, 12 needles, 7 questions (read once)", "long_test_seed4.json", long_cell("30")),
    Figure("", "third draw: 60 minutes, 20 needles, 7 questions (read once)", "long_test_seed4.json", long_cell("60")),
    Figure("", "fourth draw (seed 5), every clip's cosine kept: 5 minutes, 2 videos, 8 questions (read once; section 83)",
           "long_test_seed5.json", long_cell("5")),
    Figure("", "fourth draw: 30 minutes, 12 needles, 7 questions (read once)", "long_test_seed5.json", long_cell("30")),
    Figure("", "fourth draw: 60 minutes, 20 needles, 7 questions (read once)", "long_test_seed5.json", long_cell("60")),
    Figure("", "fifth draw (seed 6), idioms read through glosses: 5 minutes, 2 videos, 8 questions (read once; "
           "section 87)", "long_test_seed6.json", long_cell("5")),
    Figure("", "fifth draw: 30 minutes, 12 needles, 7 questions (read once)", "long_test_seed6.json", long_cell("30")),
    Figure("", "fifth draw: 60 minutes, 20 needles, 7 questions (read once)", "long_test_seed6.json", long_cell("60")),
    Figure("top moment right, R1@0.5 / Joint (retrieval alone; reading alone)", "sixth draw (seed 7), faces as before "
           "(CK+ needles, RAF-DB neutral): 5 minutes, 2 videos, 8 questions (read once; section 99)",
           "long_test_seed7.json", lambda d: baselines(d["5"])),
    *(Figure("", f"sixth draw: {m} minutes, {k} needles, 7 questions (read once)", "long_test_seed7.json",
             lambda d, m=m: baselines(d[m])) for m, k in (("30", 12), ("60", 20))),
    Figure("", "mixed faces (seed 9: every class from CK+, RAF-DB and FER2013 where they hold it): 5 minutes, 2 videos, "
           "8 questions (read once; section 99)", "long_test_mixed_seed9.json", lambda d: baselines(d["5"])),
    *(Figure("", f"mixed faces: {m} minutes, {k} needles, 7 questions (read once)", "long_test_mixed_seed9.json",
             lambda d, m=m: baselines(d[m])) for m, k in (("30", 12), ("60", 20))),
    Figure("", "joined test form, 12 videos, 96 questions, faces as before (seed 9; read once; section 99)",
           "joined_test_seed9.json", lambda d: baselines(d["ckplus"])),
    Figure("", "the same draw with mixed faces (read once)", "joined_test_seed9.json", lambda d: baselines(d["mixed"])),
    Figure("top moment right, R1@0.5 / Joint (previous code, 301ea90; retrieval alone; reading alone)",
           "mixed faces, new draw (seed 11): 5 minutes, 2 videos, 8 questions (read once; section 157)",
           "long_test_mixed_seed11.json", lambda d: baselines(d["5"], WITH_PREVIOUS)),
    *(Figure("", f"mixed faces, seed 11: {m} minutes, {k} needles, 7 questions (read once)",
             "long_test_mixed_seed11.json", lambda d, m=m: baselines(d[m], WITH_PREVIOUS))
      for m, k in (("30", 12), ("60", 20))),
    Figure("", "joined test form, mixed faces, seed 11, 12 videos, 96 questions (read once)",
           "joined_test_mixed_seed11.json", lambda d: baselines(d["mixed"], WITH_PREVIOUS)),
    Figure("", "mixed faces, FER2013 faces only where FER+'s taggers agree with their label, new draw (seed 12): "
           "5 minutes, 2 videos, 8 questions (read once; section 161)", "long_test_agreed_seed12.json",
           lambda d: baselines(d["5"], WITH_PREVIOUS)),
    *(Figure("", f"FER+-agreed faces, seed 12: {m} minutes, {k} needles, 7 questions (read once)",
             "long_test_agreed_seed12.json", lambda d, m=m: baselines(d[m], WITH_PREVIOUS))
      for m, k in (("30", 12), ("60", 20))),
    Figure("", "joined test form, FER+-agreed faces, seed 12, 12 videos, 96 questions (read once)",
           "joined_test_agreed_seed12.json", lambda d: baselines(d["mixed"], WITH_PREVIOUS)),
    Figure("voice emotion, 7 classes (chance 0.143)",
           "RAVDESS test actors, 360 utterances (read twice by voice8; once more by the speaker-baseline heads, "
           "section 133)",
           "voice_test.json",
           lambda d: share(d["test_accuracy"], d["n_test"])),
    *QUESTION_FIGURES,
    Figure("top moment right, R1@0.5 (hand-set fusion)", "composed joined test form, 96 queries, commit a33ecb9 (read 35+ times: now dev)",
           "fusion_test.json", lambda d: f"{share(d['test-graph-fold']['localization']['R1@0.5'], JOINED_QUERIES)} "
                                         f"({d['test-graph-hand']['localization']['R1@0.5']:.3f})"),
    Figure("right place and emotion, Joint (hand-set fusion)", "same", "fusion_test.json",
           lambda d: f"{share(d['test-graph-fold']['localization']['Joint'], JOINED_QUERIES)} "
                     f"({d['test-graph-hand']['localization']['Joint']:.3f})"),
    Figure("top moment right, R1@0.5", "composed 5-minute needle test videos, 8 queries, commit a33ecb9 (read 15+ times: now dev)",
           "fusion_test.json", lambda d: share(d["long-graph-fold"]["localization"]["R1@0.5"], LONG_QUERIES)),
    Figure("change point within 2 s, \"when does her mood change?\" (previous code; perception reading alone)",
           "composed transitions of one face, CK+ test subjects, 14 questions (read once; face8, commit c973ac8)", "transitions_test.json",
           lambda d: f"{stored(d['methods']['graph']['within_2s'])} ({d['methods']['previous']['within_2s'][0]:.3f}; "
                     f"{d['methods']['reading alone']['within_2s'][0]:.3f})"),
    Figure("and the emotions before and after both named (reading alone)", "same", "transitions_test.json",
           lambda d: f"{stored(d['methods']['graph']['both'])} ({d['methods']['reading alone']['both'][0]:.3f})"),
    Figure("change point within 2 s in a long video, \"from A to B\" (retrieval alone; reading alone)",
           "composed 30-minute video, 8 subjects' transitions among still shots, CK+ test subjects (read once; section 41)",
           "transitions_long_test.json",
           lambda d: f"{stored(d['30']['methods']['graph']['within_2s'])} "
                     f"({d['30']['methods']['retrieval alone']['within_2s'][0]:.3f}; "
                     f"{d['30']['methods']['reading alone']['within_2s'][0]:.3f})"),
    Figure("", "composed 60-minute video, 12 transitions (read once)", "transitions_long_test.json",
           lambda d: f"{stored(d['60']['methods']['graph']['within_2s'])} "
                     f"({d['60']['methods']['retrieval alone']['within_2s'][0]:.3f}; "
                     f"{d['60']['methods']['reading alone']['within_2s'][0]:.3f})"),
    Figure("feeling after someone leaves: departure within 2 s / before and after both named (previous code; reading "
           "alone)", "composed, two CK+ test subjects side by side, one walks out, 12 questions (read once; section 43)",
           "departures_test.json", lambda d: change_cell(d["methods"])),
    Figure("change across a hard cut: within 2 s / before and after both named (previous code; reading alone)",
           "composed transitions of one face at hard cuts, CK+ test subjects, a new draw, 15 questions (read once; "
           "section 47)", "continuity_test.json", change("short")),
    Figure("", "a new draw: composed 30-minute video, 8 transitions among still shots (read once)",
           "continuity_test.json", change("30")),
    Figure("", "a new draw: composed 60-minute video, 12 transitions (read once)", "continuity_test.json",
           change("60")),
    Figure("a moment that stands out against the person's own look: right place and emotion (previous code; "
           "reading alone; reading alone against each person's baseline)",
           "composed 30-minute video, CK+ test subjects changing once among recurring stills, a question per emotion "
           "shown (read once; section 48)", "salience_test.json", salience("30")),
    Figure("", "composed 60-minute video, the same form (read once)", "salience_test.json", salience("60")),
    Figure("word edges at a pause within 0.1 s of the hand labels, refined (Whisper's)",
           "TIMIT test speakers, 190 edges, by speaker (read twice: now dev)", "word_times_test.json",
           lambda d: f"{stored(d['refined_at']['within_0.1s'])} ({d['whisper_at']['within_0.1s'][0]:.3f})"),
)


def table(figures: tuple[Figure, ...] = FIGURES) -> str:
    """The markdown table of ``figures``: measure | data | figure [95 % interval] | result file."""
    rows = ["| measure | data | figure [95 % interval] | result file |", "|---|---|---|---|"]
    for f in figures:
        d = json.loads((RESULTS / f.file).read_text())
        rows.append(f"| {f.what} | {f.data} | {f.cell(d)} | `{f.file}` |")
    return "\n".join(rows)


def print_table(render: Callable[[], str], folder: str) -> int:
    """Print ``render()``'s table; 2 with one line where a file it reads is absent (``folder`` is in a source
    checkout only: an installed wheel carries none), else 0."""
    try:
        print(render())
    except FileNotFoundError as exc:
        print(f"error: {exc.filename}: file not found ({folder} is in the source checkout only)", file=sys.stderr)
        return 2
    return 0


def main() -> int:
    """Print ``table()`` (``print_table``)."""
    return print_table(table, "evals/results")


if __name__ == "__main__":
    sys.exit(main())
