"""Answer label sets: the bundled taxonomies, naming a reading, the query's words, a user's file, the CLI."""

from __future__ import annotations

import json

import pytest

from agents.schema import Answer
from agents.taxonomy import BUNDLED, TaxonomyError, load_taxonomy, resolve_labels
from tests.conftest import SAMPLE, run_cli
from tools.core.schema import AFFECTNET8


@pytest.mark.parametrize("name", list(BUNDLED))
def test_every_bundled_set_names_every_affectnet8_reading_and_cites_its_mapping(name):
    taxonomy = load_taxonomy(name.lower())
    assert taxonomy.name == name
    for reading in AFFECTNET8:
        assert taxonomy.primary(reading) in taxonomy.names
    assert all(lab.basis and lab.description for lab in taxonomy.labels)


def test_vqau13_has_the_benchmarks_thirteen_categories():
    assert sorted(load_taxonomy("VQAU-13").names) == sorted(
        ["Anger", "Anticipation", "Disgust", "Fear", "Horror", "Joy", "Love", "Neutral", "Pride", "Sadness",
         "Satisfaction", "Surprise", "Trust"])
    assert load_taxonomy("MER-6").names == ["neutral", "angry", "happy", "sad", "worried", "surprise"]


def test_the_querys_words_choose_among_labels_a_face_cannot_tell_apart():
    vqau = load_taxonomy("VQAU-13")
    asked, targets = vqau.asked_labels("when does she feel proud of her team?", ["sadness"])
    assert (asked, targets) == (["Pride"], ["happiness"])  # the named label sets the AffectNet-8 target
    assert vqau.label_for("happiness", asked) == "Pride"
    assert vqau.label_for("happiness", []) == "Joy"
    assert vqau.label_for("anger", asked) == "Anger"  # a reading the asked label does not cover keeps its own name
    assert vqau.asked_labels("when is everyone horrified?", []) == (["Horror"], ["fear", "disgust"])
    # no label word: the interpreter's AffectNet-8 targets, named by their primary labels
    assert vqau.asked_labels("when is he furious?", ["anger"]) == (["Anger"], ["anger"])
    assert load_taxonomy("MER-6").label_for("contempt") == "angry"
    assert load_taxonomy("AffectNet-8").asked_labels("when is she scornful?", ["contempt"]) == (["contempt"], ["contempt"])


def test_a_users_taxonomy_file_loads_and_a_broken_one_is_one_clear_error(tmp_path):
    good = {"name": "valence-3", "description": "positive / neutral / negative", "source": "test",
            "labels": [{"name": "positive", "description": "pleasant", "affectnet8": {"happiness": 1.0, "surprise": 0.5},
                        "basis": "valence sign"},
                       {"name": "neutral", "description": "neither", "affectnet8": {"neutral": 1.0}, "basis": "identity"},
                       {"name": "negative", "description": "unpleasant", "basis": "valence sign",
                        "affectnet8": {k: 1.0 for k in ("sadness", "fear", "disgust", "anger", "contempt")}}]}
    path = tmp_path / "valence.json"
    path.write_text(json.dumps(good))
    assert resolve_labels(str(path)) == str(path)
    assert load_taxonomy(str(path)).label_for("contempt") == "negative"
    good["labels"] = good["labels"][:2]  # sadness, fear, ... now have no label
    path.write_text(json.dumps(good))
    load_taxonomy.cache_clear()
    with pytest.raises(TaxonomyError, match=r"valence.json: .*no label for the AffectNet-8 reading"):
        load_taxonomy(str(path))
    with pytest.raises(TaxonomyError, match="unknown label set 'plutchik'"):
        load_taxonomy("plutchik")


@pytest.mark.slow
def test_cli_answers_in_vqau13_and_names_a_smile_pride_when_pride_is_asked(tmp_path, cache_root):
    out = tmp_path / "a.json"
    proc = run_cli(str(SAMPLE), "when does someone feel proud?", "--labels", "vqau-13", "--json", str(out),
                   "--cache-dir", str(cache_root), "--quiet")
    assert proc.returncode == 0, proc.stderr
    answer = Answer.model_validate_json(out.read_text())
    vqau = load_taxonomy("VQAU-13")
    assert answer.labels == "VQAU-13" and answer.intent.target_labels == ["Pride"]
    assert answer.intent.target_emotions == ["happiness"]
    assert answer.moments and all(m.emotion == vqau.label_for(m.affectnet8, ["Pride"]) for m in answer.moments)
    assert "Pride" in [m.emotion for m in answer.moments if m.affectnet8 == "happiness"]
    assert any(m.rationale.startswith("Pride (read as happiness, confidence") for m in answer.moments)
    bad = run_cli(str(SAMPLE), "when is he happy?", "--labels", "plutchik-8", "--cache-dir", str(cache_root))
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        ("error: labels: unknown label set 'plutchik-8': use one of AffectNet-8, VQAU-13, Ekman-6, MER-6 or a "
         "taxonomy .json file")]
