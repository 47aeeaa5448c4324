"""Questions in other languages: the offline question reader before (English readings only) and now (a question in
another language read by the multilingual sentence encoder, ``agents.intent.foreign_reading``).

    python -m studies.translated_questions --dev [--json report.json]
    python -m studies.translated_questions --heldout [--second | --third | --fourth | --fifth | --sixth | --short]
        [--json F]
    python -m studies.translated_questions --offsets
    python -m studies.translated_questions --bench BENCH.jsonl --language de --out DIR/bench_de.jsonl
    python -m studies.translated_questions --score DIR --bench BENCH.jsonl [--json report.json]

``--dev``: the labelled questions' dev half translated into Spanish, German, French and Chinese, and the 16 questions
that name no feeling translated likewise (``evals/data/questions_translated.jsonl``); the floors tried for the
multilingual reading; how many of the project's English question files' questions the language check calls
English (every file but the translated ones and the unread seventh held-out file); and the people read from every
translated file against those of its English question (``people_agreement``; section 108). ``--heldout``: the test
half's translations (``questions_translated_heldout.jsonl``), read once when section 105's change was done; with
``--second``, the sixth held-out file's idioms translated (``questions_translated_heldout2.jsonl``), read once when
section 107's was; with ``--third``, questions written in the four languages (``questions_translated3.jsonl``), read
once when section 192's word-by-word reading was first done; with ``--fourth``, a second such file
(``questions_translated4.jsonl``), read once when it was mended; with ``--fifth``, a third
(``questions_translated5.jsonl``), read once when section 194's reading was done; with ``--short``, short
questions (``questions_translated_short.jsonl``) read with and without section 194's language check; with
``--sixth``, a fifth writer's file (``questions_translated6.jsonl``), read once when section 195's label offsets were
done. ``--offsets``: compute those offsets (``computed_label_offsets``) and write
``tools/data/question_label_offsets.json``.

``--bench``: a bench (``evals.bench``) whose questions are the bench templates (``evals.build_bench.TEMPLATES``), with
each question replaced by its translation (``evals/data/templates_translated.jsonl``) and each video named by its
absolute path, for ``python -m evals.run``. ``--score DIR``: R1@0.5 and Joint of the runs in ``DIR`` (``en`` on the
English bench; ``before_<language>`` and ``now_<language>`` on ``DIR/bench_<language>.jsonl``), per language and over
all four, with intervals and paired differences over the bench's videos (``evals/RESULTS.md`` section 105).

Top-1 is the share of feeling questions whose first target is their label; its interval resamples the English
questions (a question's four translations together: ``evals.metrics.bootstrap_interval`` with groups).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

DATA = Path(__file__).parents[1] / "evals" / "data"
DEV = DATA / "questions_translated.jsonl"
HELDOUT = DATA / "questions_translated_heldout.jsonl"
HELDOUT2 = DATA / "questions_translated_heldout2.jsonl"
HELDOUT3 = DATA / "questions_translated3.jsonl"
HELDOUT4 = DATA / "questions_translated4.jsonl"
HELDOUT5 = DATA / "questions_translated5.jsonl"
HELDOUT6 = DATA / "questions_translated6.jsonl"
SHORT = DATA / "questions_translated_short.jsonl"
TEMPLATES = DATA / "templates_translated.jsonl"
#: Section 107's floor of the whole question's similarity to the English descriptions (0.40 since section 194, which
#: reads them beside their translations).
SECTION_107_FLOOR = 0.34
#: Section 192's word floor and lead behind it (``agents.intent.word_feeling``; 0.40 and 0 since section 194).
SECTION_192_WORDS = (0.40, 0.05)
#: The floors tried for the multilingual reading on the development translations: section 105 tried 0.15-0.30 on the
#: whole question and took 0.25; section 107 tried 0.15-0.40 on the question without its frame words
#: (``tools.perception.language.question_core``) and took 0.34 (``SECTION_107_FLOOR``).
FLOORS = tuple(k / 100 for k in range(15, 41))


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _readings() -> dict:
    """Each reading's targets of a question: before (the English reader whatever the language), section 105's (a
    question in another language read whole at ``agents.intent.MIN_EMOTION_SIM``), section 107's (read without its
    frame words against the English descriptions at ``SECTION_107_FLOOR``), section 192's (then word by word at
    ``SECTION_192_WORDS``), section 194's (the shipped reading without section 195's label offsets) and now (the
    shipped ``agents.intent.offline_intent``)."""
    from agents.intent import asked_emotions, chosen_emotions, foreign_reading, offline_intent, word_feeling
    from tools.perception.language import question_core, question_language, question_words
    from tools.perception.text_emotion import load_text_emotion
    from tools.signals.emoji import spelled_out

    def whole(q: str, core: bool = False) -> list[str]:
        if (language := question_language(q)) == "en":
            return asked_emotions(q)
        read = question_core(q, language) if core else q
        scores = load_text_emotion(encoder="use-multilingual").similarities(read)[0]
        return chosen_emotions(scores, q, SECTION_107_FLOOR, joined=False) if core else chosen_emotions(scores, q)

    def section_192(q: str) -> list[str]:  # section 107's reading, then word by word (``SECTION_192_WORDS``)
        if (targets := whole(q, core=True)) or (language := question_language(q)) == "en":
            return targets
        use = load_text_emotion(encoder="use-multilingual")
        label = word_feeling(use.emotion_similarities(question_words(q, language)), *SECTION_192_WORDS)
        return [label] if label else []

    def section_194(q: str) -> list[str]:  # the shipped reading without section 195's label offsets
        if (language := question_language(spelled_out(q))) == "en":
            return offline_intent({"query": q}).target_emotions
        return foreign_reading(spelled_out(q), language, centred=False)[0]

    return {"before": asked_emotions, "section_105": whole, "section_107": functools.partial(whole, core=True),
            "section_192": section_192, "section_194": section_194,
            "now": lambda q: offline_intent({"query": q}).target_emotions}


def _top1(rows: list[dict], targets: dict[str, list[str]]) -> dict:
    """Top-1 over ``rows`` with its interval over English questions, per language and per emotion."""
    from evals.metrics import bootstrap_interval

    right = [float(targets[r["query"]][:1] == [r["emotion"]]) for r in rows]
    low, high = bootstrap_interval(right, [r["english"] for r in rows])

    def share(keep) -> float:
        picked = [x for x, r in zip(right, rows, strict=True) if keep(r)]
        return round(sum(picked) / len(picked), 3)

    return {"n": len(rows), "right": int(sum(right)), "top1": round(sum(right) / len(rows), 3),
            "top1_ci95": [round(low, 3), round(high, 3)],
            "per_language": {lang: share(lambda r, lang=lang: r["language"] == lang)
                             for lang in dict.fromkeys(r["language"] for r in rows)},
            "per_emotion": {e: share(lambda r, e=e: r["emotion"] == e)
                            for e in dict.fromkeys(r["emotion"] for r in rows)}}


def read(path: Path) -> dict:
    """The readings of a translated question file (``_readings``): top-1 of its feeling questions, the no-feeling
    questions left without an emotion, the paired differences of now against before and against section 105's
    reading, section 107's and section 192's, the language named right, and each question's targets."""
    from studies.intent import paired
    from tools.perception.language import language_notes, question_language

    rows = _rows(path)
    feeling, none = [r for r in rows if r["emotion"]], [r for r in rows if not r["emotion"]]
    targets = {name: {r["query"]: read_one(r["query"]) for r in rows} for name, read_one in _readings().items()}
    right = {name: [t[r["query"]][:1] == [r["emotion"]] for r in feeling] for name, t in targets.items()}
    return {
        "questions": str(path.relative_to(DATA.parents[1])),
        **{name: {"feeling": _top1(feeling, t), "no_feeling_kept_empty": sum(not t[r["query"]] for r in none),
                  "no_feeling": len(none)} for name, t in targets.items()},
        "paired_top1": paired(right["now"], right["before"]),
        "paired_top1_section_105": paired(right["now"], right["section_105"]),
        "paired_top1_section_107": paired(right["now"], right["section_107"]),
        "paired_top1_section_192": paired(right["now"], right["section_192"]),
        "paired_top1_section_194": paired(right["now"], right["section_194"]),
        "language_named": sum(question_language(r["query"]) == r["language"] for r in rows),
        "noted": sum(bool(language_notes(r["query"])) for r in rows),
        "per_question": [{"question": r["query"], "language": r["language"], "label": r["emotion"],
                          **{name: t[r["query"]] for name, t in targets.items()}} for r in rows],
    }


def floors(core: bool = True) -> list[dict]:
    """The development translations read at each of ``FLOORS``, without their frame words (``core``; the whole
    question with ``core=False``, section 105's reading): feeling questions right first, no-feeling questions left
    empty, and the mean of the two shares (the rule the floor was chosen by). The targets are chosen as the shipped
    reader chooses them (``agents.intent.chosen_emotions`` at each floor)."""
    from agents.intent import chosen_emotions
    from tools.perception.language import question_core
    from tools.perception.text_emotion import load_text_emotion

    rows = _rows(DEV)
    use = load_text_emotion(encoder="use-multilingual")
    scores = [use.similarities(question_core(r["query"], r["language"]) if core else r["query"])[0] for r in rows]
    out = []
    for floor in FLOORS:
        chosen = [chosen_emotions(s, r["query"], floor) for s, r in zip(scores, rows, strict=True)]
        right = sum(c[:1] == [r["emotion"]] for c, r in zip(chosen, rows, strict=True) if r["emotion"])
        empty = sum(not c for c, r in zip(chosen, rows, strict=True) if not r["emotion"])
        n_feel = sum(bool(r["emotion"]) for r in rows)
        out.append({"floor": floor, "right": right, "kept_empty": empty,
                    "balanced": round((right / n_feel + empty / (len(rows) - n_feel)) / 2, 4)})
    return out


#: The pairs of ``agents.intent.FOREIGN_WORD_FROM`` and ``FOREIGN_WORD_LEAD`` tried on the development translations.
WORD_TRIALS = [(start, lead) for start in (0.30, 0.32, 0.34, 0.36, 0.38, 0.40, 0.42, 0.44)
               for lead in (0.0, 0.03, 0.05, 0.08)]


def _development_rows() -> list[dict]:
    """Every development translation: the five translated files, the held-out ones read once since (1,120)."""
    return [r for path in (DEV, HELDOUT, HELDOUT2, HELDOUT3, HELDOUT4) for r in _rows(path)]


@functools.cache
def _development_readings(translated: bool = True) -> tuple[list[dict], list[dict], list[list[dict]]]:
    """(rows, wholes, words) of the development translations (``_development_rows``): each one's emotion similarities
    without its frame words, and those of each of its words (``question_words``), against the English descriptions
    and, with ``translated``, their translations into its language (``load_language_emotion``, the shipped reading).
    Encoded once a process: ``reading_trials`` and ``word_trials`` read the same."""
    from tools.perception.language import question_core, question_words
    from tools.perception.text_emotion import load_language_emotion, load_text_emotion

    rows = _development_rows()
    readers = [load_language_emotion(r["language"]) if translated else load_text_emotion(encoder="use-multilingual")
               for r in rows]
    wholes = [reader.similarities(question_core(r["query"], r["language"]))[0]
              for reader, r in zip(readers, rows, strict=True)]
    words = [reader.emotion_similarities(question_words(r["query"], r["language"]))
             for reader, r in zip(readers, rows, strict=True)]
    return rows, wholes, words


#: The floors (``agents.intent.FOREIGN_MIN_EMOTION_SIM``) tried with each pair of ``WORD_TRIALS`` (section 194).
JOINT_FLOORS = tuple(k / 100 for k in range(30, 46))


def reading_trials() -> dict:
    """Section 194's choice: the development translations (``_development_rows``) read by the whole question at each
    of ``JOINT_FLOORS`` and then, where it names no feeling, word by word at each pair of ``WORD_TRIALS`` (or not:
    ``"from": null``), against the English descriptions alone and against them and their translations: feeling
    questions named first, no-feeling questions left empty, and the mean of the two shares (section 107's rule, here
    over the floor and the pair together, since a higher floor leaves more questions to the words). Sorted best
    first; ties go to the more feelings named. Without section 195's label offsets (``centring_trials``)."""
    from agents.intent import chosen_emotions, word_feeling

    rows = _development_rows()
    n_feel = sum(bool(r["emotion"]) for r in rows)
    out: dict = {"questions": len(rows), "feeling": n_feel}
    for name, translated in (("english", False), ("translated", True)):
        _, scores, words = _development_readings(translated)
        trials = []
        for floor in JOINT_FLOORS:
            wholes = [chosen_emotions(sc, r["query"], floor, joined=False) for sc, r in zip(scores, rows, strict=True)]
            for start, lead in [(None, None), *WORD_TRIALS]:
                chosen = [w or ([label] if start is not None and (label := word_feeling(ws, start, lead)) else [])
                          for w, ws in zip(wholes, words, strict=True)]
                right = sum(c[:1] == [r["emotion"]] for c, r in zip(chosen, rows, strict=True) if r["emotion"])
                empty = sum(not c for c, r in zip(chosen, rows, strict=True) if not r["emotion"])
                trials.append({"floor": floor, "from": start, "lead": lead, "right": right, "kept_empty": empty,
                               "balanced": round((right / n_feel + empty / (len(rows) - n_feel)) / 2, 4)})
        out[name] = sorted(trials, key=lambda t: (-t["balanced"], -t["right"]))
    return out


def word_trials() -> dict:
    """The word-by-word reading (``agents.intent.word_feeling``) at each of ``WORD_TRIALS`` over the development
    translations (``_development_rows``), behind section 194's whole-question reading (its own language's descriptions
    too, ``FOREIGN_MIN_EMOTION_SIM``, without section 195's label offsets): among the questions whose whole names no feeling, those a word then names right,
    those it names a wrong feeling, and no-feeling questions it gives one; and how often the whole reading's first
    feeling is right where it names one (the precision the pair is chosen to match). Section 192's figures, over 864
    questions and the English descriptions alone, are in ``evals/results/translated_questions_dev_192.json``."""
    from agents.intent import FOREIGN_MIN_EMOTION_SIM, chosen_emotions, word_feeling

    rows, scores, words = _development_readings()
    wholes = [chosen_emotions(sc, r["query"], FOREIGN_MIN_EMOTION_SIM, joined=False)
              for sc, r in zip(scores, rows, strict=True)]
    named = [(w[0], r["emotion"]) for w, r in zip(wholes, rows, strict=True) if w and r["emotion"]]
    unread = [(r, ws) for w, r, ws in zip(wholes, rows, words, strict=True) if not w]
    trials = []
    for start, lead in WORD_TRIALS:
        labels = [(word_feeling(words, start, lead), r["emotion"]) for r, words in unread]
        trials.append({"from": start, "lead": lead, "right": sum(a is not None and a == b for a, b in labels),
                       "wrong": sum(a is not None and b is not None and a != b for a, b in labels),
                       "no_feeling_given_one": sum(a is not None and b is None for a, b in labels)})
    return {"questions": len(rows), "whole_names_none": len(unread),
            "whole_precision": [sum(a == b for a, b in named), len(named)], "trials": trials}


def computed_label_offsets() -> dict:
    """Section 195's label offsets (``tools.signals.descriptions.label_offsets``): each AffectNet-8 label's mean
    similarity over the development translations (``_development_readings``, the questions without their frame words
    against their language's phrases; labels unread), less the mean over labels, one set for the four languages;
    with the means per language, the method, and the digest of the phrases they were computed against."""
    import numpy as np

    from tools.core.schema import AFFECTNET8
    from tools.signals.descriptions import descriptions_digest

    rows, wholes, _ = _development_readings()
    per_language = {language: np.mean([[w[k] for k in AFFECTNET8] for w, r in zip(wholes, rows, strict=True)
                                       if r["language"] == language], axis=0)
                    for language in sorted({r["language"] for r in rows})}
    pooled = np.mean(list(per_language.values()), axis=0)
    return {"method": "each label's mean cosine similarity (multilingual Universal Sentence Encoder, the question "
                      "without its frame words against the label's English and translated phrases, the best phrase)"
                      " over the development translations, labels unread, averaged over the four languages, less "
                      "the mean over labels (python -m studies.translated_questions --offsets; evals/RESULTS.md "
                      "section 195)",
            "source": [str(path.relative_to(DATA.parents[1])) for path in (DEV, HELDOUT, HELDOUT2, HELDOUT3,
                                                                           HELDOUT4)],
            "questions": len(rows), "languages": sorted(per_language), "descriptions_digest": descriptions_digest(),
            "offsets": {k: round(float(v - pooled.mean()), 4) for k, v in zip(AFFECTNET8, pooled, strict=True)},
            "mean_per_language": {language: {k: round(float(v), 4) for k, v in zip(AFFECTNET8, m, strict=True)}
                                  for language, m in per_language.items()}}


def centring_trials() -> dict:
    """Section 195's development figures: the development translations read at the shipped floor and word reading,
    as section 194 shipped them, with the pooled label offsets (``computed_label_offsets``) and with each language's
    own; feeling questions named first, no-feeling questions kept empty, the wrong first feelings by label."""
    from collections import Counter

    from agents.intent import centred_targets, centred_word

    rows, wholes, words = _development_readings()
    computed = computed_label_offsets()
    by_language = {language: {k: v - sum(means.values()) / len(means) for k, v in means.items()}
                   for language, means in computed["mean_per_language"].items()}
    offsets_of = {"section_194": lambda language: {}, "pooled": lambda language: computed["offsets"],
                  "per_language": lambda language: by_language[language]}
    out: dict = {"questions": len(rows), "offsets": computed["offsets"]}
    for name, offsets in offsets_of.items():
        right = empty = 0
        wrong: Counter = Counter()
        for r, scores, readings in zip(rows, wholes, words, strict=True):
            less = offsets(r["language"])  # foreign_reading's choice, the readings encoded once
            chosen = centred_targets(r["query"], scores, less) or centred_word(readings, less)
            right += bool(r["emotion"]) and chosen[:1] == [r["emotion"]]
            empty += not r["emotion"] and not chosen
            wrong.update(chosen[:1] if r["emotion"] and chosen and chosen[0] != r["emotion"] else [])
        out[name] = {"right": right, "kept_empty": empty, "wrong_first": dict(wrong.most_common())}
    return out


def short_questions(path: Path = SHORT) -> dict:
    """Section 194's language check on short questions (``path``, default ``SHORT``): the language named right and
    the feeling named first (no-feeling questions kept empty) when a question below ``MIN_LANGUAGE_P`` is read as
    English (before) and when the language of its frame words is read (``framed_languages``, now); each question
    whose language or reading differs. Read with this checkout's reader (section 195's label offsets since; the
    stored result of section 194's read, ``evals/results/translated_questions_short.json``, without them)."""
    from agents.intent import asked_emotions, foreign_reading, offline_intent
    from tools.perception.language import MIN_LANGUAGE_P, _identifier, has_english_marker, question_language

    def before_language(q: str) -> str:
        language, p = _identifier().classify(q)
        return "en" if has_english_marker(q) or p < MIN_LANGUAGE_P else language

    out: dict = {"questions": str(path.relative_to(DATA.parents[1]))}
    rows, changed = _rows(path), []
    for name, language_of in (("before", before_language), ("now", question_language)):
        languages = [language_of(r["query"]) for r in rows]
        targets = [offline_intent({"query": r["query"]}).target_emotions if lang == question_language(r["query"])
                   else asked_emotions(r["query"]) if lang == "en" else foreign_reading(r["query"], lang)[0]
                   for lang, r in zip(languages, rows, strict=True)]
        out[name] = {"language_named": sum(lang == r["language"] for lang, r in zip(languages, rows, strict=True)),
                     "feeling_named_first": sum(t[:1] == [r["emotion"]] for t, r in zip(targets, rows, strict=True)
                                                if r["emotion"]),
                     "no_feeling_kept_empty": sum(not t for t, r in zip(targets, rows, strict=True)
                                                  if not r["emotion"]),
                     "per_question": [[lang, t] for lang, t in zip(languages, targets, strict=True)]}
    for i, r in enumerate(rows):
        if out["before"]["per_question"][i] != out["now"]["per_question"][i]:
            changed.append({"question": r["query"], "label": r["emotion"], "before": out["before"]["per_question"][i],
                            "now": out["now"]["per_question"][i]})
    out["n"], out["feeling"], out["changed"] = len(rows), sum(bool(r["emotion"]) for r in rows), changed
    return out


def english_questions() -> dict:
    """How many distinct questions of the English question files (every ``evals/data/questions*.jsonl`` but the
    translated ones and ``questions_heldout7.jsonl``, which is unread) the language check calls English, and those it
    does not."""
    from tools.perception.language import has_english_marker, question_language

    questions = sorted({json.loads(line)["query"] for f in sorted(DATA.glob("questions*.jsonl"))
                        if "translated" not in f.name and "heldout7" not in f.name
                        for line in f.read_text(encoding="utf-8").splitlines() if line.strip()})
    other = [q for q in questions if question_language(q) != "en"]
    return {"n": len(questions), "english": len(questions) - len(other),
            "by_marker": sum(map(has_english_marker, questions)), "not_english": other}


def translate_bench(bench: Path, language: str, out: Path) -> int:
    """Write ``bench`` to ``out`` with every question in ``language`` (``TEMPLATES``) and absolute video paths;
    returns the number of items.

    Raises:
        KeyError: a question of the bench has no translation into ``language``.
    """
    table = {r["english"]: r["query"] for r in _rows(TEMPLATES) if r["language"] == language}
    items = [json.loads(line) for line in bench.read_text(encoding="utf-8").splitlines() if line.strip()]
    for item in items:
        item["query"] = table[item["query"]]
        item["video"] = str((bench.resolve().parent / item["video"]).resolve())
    out.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), encoding="utf-8")
    return len(items)


def bench_scores(folder: Path, english: Path) -> dict:
    """``--score``'s report (module doc): per run [mean, low, high] of R1@0.5 and Joint (``evals.summary.per_item``),
    and over the four languages the paired difference ``now - before`` with its interval over videos."""
    from evals.metrics import bootstrap_interval
    from evals.summary import per_item

    def interval(values: list[float], videos: list[str]) -> list[float]:
        return [round(sum(values) / len(values), 3), *(round(v, 3) for v in bootstrap_interval(values, videos))]

    scores, videos = per_item(english, folder / "en")
    out: dict = {"en": {k: interval(v, videos) for k, v in scores.items()}}
    pooled: dict[str, dict[str, list[float]]] = {"before": {}, "now": {}}
    for language in ("es", "de", "fr", "zh"):
        for reading in ("before", "now"):
            scores, videos = per_item(folder / f"bench_{language}.jsonl", folder / f"{reading}_{language}")
            out[f"{reading}_{language}"] = {k: interval(v, videos) for k, v in scores.items()}
            for k, v in scores.items():
                pooled[reading].setdefault(k, []).extend(v)
    groups = videos * 4
    out["pooled"] = {reading: {k: interval(v, groups) for k, v in figures.items()}
                     for reading, figures in pooled.items()}
    out["paired"] = {k: interval([a - b for a, b in zip(pooled["now"][k], pooled["before"][k], strict=True)], groups)
                     for k in pooled["now"]}
    return out


def people_agreement() -> dict:
    """Per language, over every translated question file: how many questions the English reader's people of the
    English question (``tools.signals.lexicon.person_phrases``) are read exactly from the translation, before (the
    English reader's people of the translation) and now (``tools.perception.language.foreign_people``), and how many
    translations now name someone the English question does not."""
    from tools.perception.language import foreign_people
    from tools.signals.lexicon import person_phrases

    rows = [r for path in (DEV, HELDOUT, HELDOUT2, TEMPLATES) for r in _rows(path)]
    out = {}
    for language in dict.fromkeys(r["language"] for r in rows):
        mine = [r for r in rows if r["language"] == language]
        now = [(foreign_people(r["query"], language), person_phrases(r["english"])) for r in mine]
        out[language] = {"n": len(mine), "before": sum(person_phrases(r["query"]) == person_phrases(r["english"])
                                                       for r in mine),
                         "now": sum(got == want for got, want in now),
                         "names_another": sum(bool(set(got) - set(want)) for got, want in now)}
    return out


def development() -> dict:
    """``--dev``'s report (module doc)."""
    return {**read(DEV), "floors": floors(), "floors_whole_question": floors(core=False),
            "english_questions": english_questions(), "people": people_agreement(),
            "reading_trials": reading_trials(), "word_trials": word_trials(), "centring_trials": centring_trials()}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.translated_questions", description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    ap.add_argument("--score", type=Path, metavar="DIR", help="score the runs in DIR (module doc); with --bench")
    mode.add_argument("--dev", action="store_true", help="read the development translations, the floors and the "
                      "English files' language")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--second", action="store_true", help="with --heldout: the second held-out file (section 107)")
    which.add_argument("--third", action="store_true", help="with --heldout: the third held-out file (section 192)")
    which.add_argument("--fourth", action="store_true", help="with --heldout: the fourth held-out file (section 192)")
    which.add_argument("--fifth", action="store_true", help="with --heldout: the fifth held-out file (section 194)")
    which.add_argument("--short", action="store_true", help="with --heldout: the short questions' language check "
                       "(section 194)")
    which.add_argument("--sixth", action="store_true", help="with --heldout: the sixth held-out file (section 195)")
    mode.add_argument("--heldout", action="store_true", help="read the held-out translations, once")
    mode.add_argument("--offsets", action="store_true", help="compute section 195's label offsets from the "
                      "development translations and write them to tools/data/question_label_offsets.json")
    mode.add_argument("--bench", type=Path, help="a bench of template questions to translate (with --language, --out)"
                      " or whose translations' runs to score (with --score)")
    ap.add_argument("--language", choices=("es", "de", "fr", "zh"), help="the language of the translated bench")
    ap.add_argument("--out", type=Path, help="where to write the translated bench")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    if args.bench and args.score:
        return report(functools.partial(bench_scores, args.score, args.bench), args.json)
    if args.bench:
        if not (args.language and args.out):
            ap.error("--bench needs --language and --out")
        print(f"wrote {translate_bench(args.bench, args.language, args.out)} items to {args.out}")
        return 0
    if (args.second or args.third or args.fourth or args.fifth or args.sixth or args.short) and not args.heldout:
        ap.error("--second, --third, --fourth, --fifth, --sixth and --short choose a held-out file: use them with "
                 "--heldout")
    if args.offsets:
        from tools.signals.descriptions import LABEL_OFFSETS

        offsets = computed_label_offsets()
        LABEL_OFFSETS.write_text(json.dumps(offsets, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {LABEL_OFFSETS}")
        return 0
    if args.short:
        return report(short_questions, args.json, ensure_ascii=False)
    held_out = next((path for flag, path in ((args.second, HELDOUT2), (args.third, HELDOUT3), (args.fourth, HELDOUT4),
                                             (args.fifth, HELDOUT5), (args.sixth, HELDOUT6)) if flag), HELDOUT)
    return report(development if args.dev else functools.partial(read, held_out), args.json, ensure_ascii=False)


if __name__ == "__main__":
    sys.exit(main())
