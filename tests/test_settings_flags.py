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
    return {a.dest: a for a in parser._actions}


def _parses(parser: argparse.ArgumentParser, flag: str, value: str) -> bool:
    try:
        parser.parse_args(["v.mp4", "q", flag, value])
    except SystemExit:
        return False
    return True


def _loads(name: str, value: str) -> bool:
    try:
        load_settings({name: value})
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
        values = []
        if Le in bounds:
            values += [str(bounds[Le].le), str(bounds[Le].le + 1)]
        if Gt in bounds:
            values += [str(bounds[Gt].gt)]
        if Ge in bounds:
            values += [str(bounds[Ge].ge), str(bounds[Ge].ge - 1)]
        if typing.get_origin(field.annotation) is typing.Literal:
            values += [*typing.get_args(field.annotation), "nope"]
        for value in values:  # on the bound, beyond it, each choice and a wrong one
            assert _parses(parser, flag, value) == _loads(name, value), (name, value)
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


def test_the_ask_flags_keep_their_names_and_are_absent_unless_given():
    from app.ask import build_parser

    parser = build_parser()
    settings = [a for a in parser._actions if a.dest in Settings.model_fields]
    assert {s for a in settings for s in a.option_strings} == ASK_FLAGS
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
        parser, names = batch_parser(), {"llm", "top_k", "no_audio", "device", "cache_dir", "quiet"}
        head = ["videos/"]
    else:
        parser, names = eval_parser("eval"), {"llm", "top_k", "cache_dir", "device", "expression_backend",
                                              "no_voice_emotion", "abstain_below", "verify_fps"}
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
        assert parsed["abstain_below"] == 0.0 and parsed["no_voice_emotion"] is False and parsed["cache_dir"] is None
        with pytest.raises(SystemExit):
            parser.parse_args([*head, "--top-k", "101"])


def test_an_evaluation_indexes_as_ask_would(monkeypatch):
    """``eval`` builds the ``IndexConfig`` that ``ask`` builds from the same flags, variables and file (it had
    mapped its three index flags by hand, so ``AFFECTSEEK_*`` index settings did not reach it)."""
    from evals.run import build_parser as eval_parser
    from evals.run import run_index_config
    from graphs.settings import SettingsError, load_settings
    from memory.index_config import IndexConfig

    head = ["--bench", "b.jsonl", "--method", "graph", "--out", "o"]
    assert run_index_config(eval_parser("eval").parse_args(head)) == IndexConfig() == load_settings({}).index_config()
    monkeypatch.setenv("AFFECTSEEK_CLIP_LEN", "3")
    monkeypatch.setenv("AFFECTSEEK_NO_REID", "true")
    config = run_index_config(eval_parser("eval").parse_args([*head, "--no-voice-emotion"]))
    assert (config.clip_len_s, config.identity_backend, config.voice_backend) == (3.0, None, None)
    assert config == load_settings({"no_voice_emotion": True}).index_config()
    monkeypatch.setenv("AFFECTSEEK_CLIP_LEN", "-1")
    with pytest.raises(SettingsError):
        run_index_config(eval_parser("eval").parse_args(head))
