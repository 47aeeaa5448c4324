"""Each setting is declared once (``graphs.settings.Settings``) and its flags derive from it (``graphs.flags``):
``ask`` offers every setting, ``batch`` and ``eval`` the ones they take with the same names and help, and a flag
refuses exactly what the settings model refuses from a variable or the config file."""

from __future__ import annotations

import argparse
import typing

import pytest
from annotated_types import Ge, Gt, Le

from graphs.settings import Settings, SettingsError, load_settings


def _actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Each destination's first flag (a backend that can also be turned off has its off switch second)."""
    return {a.dest: a for a in reversed(parser._actions)}


def _parses(parser: argparse.ArgumentParser, flag: str, value: str) -> bool:
    try:
        parser.parse_args(["v.mp4", "q", flag, value])
    except SystemExit:
        return False
    return True


def _loads(name: str, value: str) -> bool:
    vision = {"llm": "openai/gpt-4o-mini"} if name == "llm_images" else {}  # images need a vision --llm
    try:
        load_settings({name: value, **vision})
    except SettingsError:
        return False
    return True


def test_every_setting_is_an_ask_flag_and_refuses_what_the_settings_refuse(monkeypatch, capsys):
    from app.ask import build_parser

    monkeypatch.delenv("AFFECTSEEK_CONFIG", raising=False)
    parser = build_parser()
    actions = _actions(parser)
    assert set(Settings.model_fields) <= set(actions)
    checked = 0
    for name, field in Settings.model_fields.items():
        flag = actions[name].option_strings[0]
        assert actions[name].help and field.description and field.description in actions[name].help
        bounds = {type(b): b for b in field.metadata}
        values = []  # (value, whether it is allowed): on each bound, beyond it, each choice and a wrong one
        if Le in bounds:
            values += [(str(bounds[Le].le), True), (str(bounds[Le].le + 1), False)]
        if Gt in bounds:
            values += [(str(bounds[Gt].gt), False)]
        if Ge in bounds:
            values += [(str(bounds[Ge].ge), True), (str(bounds[Ge].ge - 1), False)]
        if typing.get_origin(field.annotation) is typing.Literal:
            values += [*((str(c), True) for c in typing.get_args(field.annotation)), ("nope", False)]
        for value, allowed in values:
            assert _parses(parser, flag, value) == _loads(name, value) == allowed, (name, value)
            checked += 1
    capsys.readouterr()
    assert checked >= 30


#: The flags ``ask`` has had for its settings (users' scripts use them): derived names, and the few set by hand.
ASK_FLAGS = {"--llm", "--llm-images", "--top-k", "--cache-dir", "--quiet", "--clip-len", "--clip-stride", "--fps",
             "--openclip-checkpoint", "--clip-checkpoint", "--openclip-model", "--clip-model", "--asr-backend",
             "--asr-model", "--asr-task", "--asr-batch-size", "--language", "--transcript-encoder", "--no-audio",
             "--device", "--verify-fps", "--min-support", "--max-requery", "--labels", "--abstain-below",
             "--expression-backend", "--no-voice-emotion", "--no-reid", "--no-diarization", "--no-index-gestures",
             "--caption-model", "--caption-every"}
#: Settings that became flags when the index and run settings were declared once (``IndexSettings``, ``RunSettings``),
#: and those added since (``--asr-beam``, ``--voice-emotion``).
NEW_FLAGS = {"--embedder", "--face-backend", "--candidates-per-round", "--min-accepted", "--affect-weight", "--fusion",
             "--no-own-baseline", "--asr-beam", "--dense-per-round", "--voice-emotion"}


def test_the_ask_flags_keep_their_names_and_are_absent_unless_given():
    from app.ask import build_parser

    parser = build_parser()
    settings = [a for a in parser._actions if a.dest in Settings.model_fields]
    assert {s for a in settings for s in a.option_strings} == ASK_FLAGS | NEW_FLAGS
    assert all(a.default is argparse.SUPPRESS for a in settings)
    assert vars(parser.parse_args(["v.mp4", "q", "--caption-every", "5", "--clip-checkpoint", "c.pt"])) == {
        "video": "v.mp4", "query": "q", "json": None, "report": None, "config": None,
        "schema": False, "trace": False, "debug": False, "caption_every_s": 5.0, "openclip_checkpoint": "c.pt"}


@pytest.mark.parametrize("command", ["batch", "eval"])
def test_batch_and_eval_flags_parse_as_the_ask_flags(command, monkeypatch):
    """The settings ``batch`` and ``eval`` take are flags of the same names and values as ``ask``'s (help may
    say what the setting means for the command); ``batch`` leaves them out when not given, ``eval`` starts from
    the settings' defaults."""
    from app.ask import build_parser as ask_parser
    from app.batch import build_parser as batch_parser
    from evals.run import build_parser as eval_parser

    ask = _actions(ask_parser())
    if command == "batch":
        parser, names = batch_parser(), {"llm", "top_k", "use_audio", "device", "cache_dir", "quiet"}
        head = ["videos/"]
    else:
        parser, names = eval_parser("eval"), {"llm", "top_k", "cache_dir", "device", "expression_backend",
                                              "voice_backend", "abstain_below", "verify_fps", "dense_per_round",
                                              "affect_weight", "fusion", "own_baseline"}
        head = ["--bench", "b.jsonl", "--method", "graph", "--out", "o"]
    got = {d: a for d, a in _actions(parser).items() if d in Settings.model_fields and d != "labels"}
    assert set(got) == names
    for name in names:
        assert got[name].option_strings == ask[name].option_strings and got[name].choices == ask[name].choices
        assert (got[name].default is argparse.SUPPRESS) == (command == "batch")
    given = ["--top-k", "3", "--device", "cuda:1", "--llm", "ollama/llama3.1"]
    parsed = vars(parser.parse_args([*head, *given]))
    assert {k: parsed[k] for k in ("top_k", "device", "llm")} == {"top_k": 3, "device": "cuda:1", "llm": "ollama/llama3.1"}
    if command == "eval":
        assert parsed["abstain_below"] == 0.0 and parsed["voice_backend"] == "voice8" and parsed["cache_dir"] is None
        assert parsed["own_baseline"] is True and vars(parser.parse_args([*head, "--no-own-baseline"]))["own_baseline"] is False
        with pytest.raises(SystemExit):
            parser.parse_args([*head, "--top-k", "101"])


@pytest.mark.parametrize("command", ["ask", "eval"])
def test_the_voice_reader_is_chosen_or_turned_off(command):
    """``--voice-emotion`` names the vocal emotion model (voice8 by default, whisper8 the other),
    ``--no-voice-emotion`` turns it off, in ``ask`` and in ``eval`` alike; an unknown model is refused."""
    from app.ask import build_parser as ask_parser
    from evals.run import build_parser as eval_parser

    parser, head = ((ask_parser(), ["v.mp4", "q"]) if command == "ask"
                    else (eval_parser("eval"), ["--bench", "b.jsonl", "--method", "graph", "--out", "o"]))
    assert vars(parser.parse_args([*head, "--voice-emotion", "whisper8"]))["voice_backend"] == "whisper8"
    assert vars(parser.parse_args([*head, "--no-voice-emotion"]))["voice_backend"] is None
    assert vars(parser.parse_args(head)).get("voice_backend", Settings.model_fields["voice_backend"].default) == "voice8"
    with pytest.raises(SystemExit):
        parser.parse_args([*head, "--voice-emotion", "voice9"])


def test_an_evaluation_indexes_and_searches_as_ask_would(monkeypatch):
    """``eval`` builds the ``IndexConfig`` and the search settings that ``ask`` builds from the same flags, variables
    and file (it had mapped its index and ablation flags by hand, so ``AFFECTSEEK_*`` settings did not reach it)."""
    from evals.run import build_parser as eval_parser
    from evals.run import run_index_config, run_settings
    from graphs.settings import SettingsError, load_settings
    from memory.index_config import IndexConfig

    head = ["--bench", "b.jsonl", "--method", "graph", "--out", "o"]
    assert run_index_config(eval_parser("eval").parse_args(head)) == IndexConfig() == load_settings({}).index_config()
    monkeypatch.setenv("AFFECTSEEK_CLIP_LEN_S", "3")
    monkeypatch.setenv("AFFECTSEEK_IDENTITY_BACKEND", "none")
    config = run_index_config(eval_parser("eval").parse_args([*head, "--no-voice-emotion"]))
    assert (config.clip_len_s, config.identity_backend, config.voice_backend) == (3.0, None, None)
    assert config == load_settings({"voice_backend": None}).index_config()
    monkeypatch.setenv("AFFECTSEEK_CANDIDATES_PER_ROUND", "6")
    searched = run_settings(eval_parser("eval").parse_args([*head, "--fusion", "hand", "--verify-fps", "2"]), "Ekman-6")
    assert {k: searched[k] for k in ("candidates_per_round", "fusion", "verify_fps", "labels", "affect_weight")} == {
        "candidates_per_round": 6, "fusion": "hand", "verify_fps": 2.0, "labels": "Ekman-6", "affect_weight": 1.0}
    monkeypatch.setenv("AFFECTSEEK_CLIP_LEN_S", "-1")
    with pytest.raises(SettingsError):
        run_index_config(eval_parser("eval").parse_args(head))


def test_each_index_and_run_setting_is_declared_once_and_reaches_its_section(monkeypatch):
    """``Settings`` takes the fields of ``IndexSettings`` and ``RunSettings`` as they are declared there (no second
    declaration to drift), and a value set for any of them, by a variable here, arrives in ``index_config()`` or
    ``run_settings()``."""
    from agents.state import RunSettings
    from memory.index_config import IndexSettings

    monkeypatch.delenv("AFFECTSEEK_CONFIG", raising=False)
    for section in (IndexSettings, RunSettings):
        for name, field in section.model_fields.items():
            assert Settings.model_fields[name].description == field.description and field.description, name
            assert name not in Settings.__annotations__, name  # not declared again in Settings itself
    assert not set(IndexSettings.model_fields) & set(RunSettings.model_fields)
    changed = {"clip_len_s": "3", "sample_fps": "2", "asr_batch_size": "4", "language": "de", "use_audio": "false",
               "identity_backend": "none", "voice_id_backend": "None", "index_gestures": "0", "caption_every_s": "5",
               "top_k": "2", "candidates_per_round": "6", "min_support": "0.5", "affect_weight": "0",
               "fusion": "hand", "labels": "vqau-13", "llm_images": "1"}
    for name, value in changed.items():
        monkeypatch.setenv(f"AFFECTSEEK_{name.upper()}", value)
    monkeypatch.setenv("AFFECTSEEK_LLM", "openai/gpt-4o-mini")  # llm_images needs a vision model
    settings = load_settings({})
    got = {**settings.index_config().model_dump(), **settings.run_settings().model_dump()}
    assert {k: got[k] for k in changed} == {
        "clip_len_s": 3.0, "sample_fps": 2.0, "asr_batch_size": 4, "language": "de", "use_audio": False,
        "identity_backend": None, "voice_id_backend": None, "index_gestures": False, "caption_every_s": 5.0,
        "top_k": 2, "candidates_per_round": 6, "min_support": 0.5, "affect_weight": 0.0, "fusion": "hand",
        "labels": "VQAU-13", "llm_images": 1}


def test_images_for_the_offline_reasoner_are_refused_in_one_line(monkeypatch):
    """``--llm-images`` shows images to a vision LLM; the offline reasoner reads none, so asking for them without
    ``--llm`` is an error that says so, not images decoded and ignored."""
    monkeypatch.delenv("AFFECTSEEK_CONFIG", raising=False)
    monkeypatch.delenv("AFFECTSEEK_LLM", raising=False)
    with pytest.raises(SettingsError, match="--llm-images needs a vision --llm") as err:
        load_settings({"llm_images": 2})
    assert "\n" not in str(err.value)
    assert load_settings({"llm_images": 2, "llm": "ollama/llava"}).run_settings().llm_images == 2
    assert load_settings({"llm_images": 0}).run_settings().llm_images == 0


@pytest.mark.parametrize(("name", "value"), [("voice_backend", "voice9"), ("identity_backend", "arcface"),
                                             ("asr_backend", "kaldi"), ("face_backend", "retinaface"),
                                             ("expression_backend", "nope"), ("voice_id_backend", "ecapa")])
def test_a_backend_setting_names_a_registered_backend(name, value, monkeypatch):
    """Every backend setting is checked against its registry when the settings load: a variable or file value is
    one ``SettingsError`` naming the choices, and the flag offers exactly the registry's names."""
    from app.ask import build_parser
    from memory.index_config import backend_registry

    monkeypatch.delenv("AFFECTSEEK_CONFIG", raising=False)
    monkeypatch.setenv(f"AFFECTSEEK_{name.upper()}", value)
    with pytest.raises(SettingsError, match=repr(value)) as err:
        load_settings({})
    assert all(n in str(err.value) for n in backend_registry(name).names())
    action = _actions(build_parser())[name]
    if action.choices is not None:  # a value flag; the optional backends have an off flag (--no-reid, ...)
        assert sorted(action.choices) == sorted(backend_registry(name).names())
