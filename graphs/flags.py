"""Command-line flags derived from the settings model, so each knob is declared once (``graphs.settings.Settings``).

A field ``top_k: int = Field(5, ge=1, le=100, description=...)`` becomes ``--top-k`` with ``type=number(1, 100,
integer=True)`` (``tools.core.argtypes``), its description as help, " (default 5)" appended; a ``bool`` field becomes a
``store_true`` flag, a ``Literal`` field a flag with those choices, a backend field whose ``json_schema_extra`` sets
``registry`` a flag offering that registry's names (``memory.index_config.BACKEND_REGISTRIES``: a backend registered
in, e.g., ``tools.perception.expression`` is offered with no other edit), a field marked ``off`` a flag that turns
the feature off (False for a switch, None for a backend: ``--no-audio``, ``--no-reid``); a backend field may have both,
its choices under ``flag`` and the switch off under ``off_flag`` (with ``off_help``: ``--voice-emotion`` and
``--no-voice-emotion``). ``json_schema_extra`` may
also give the flag's name (``flag``), ``aliases``, ``metavar`` and its ``--help`` ``group``. The flags ``ask``, ``batch`` and ``eval`` share are made here, so their
names, bounds and help agree with the settings that ``AFFECTSEEK_*`` variables and the TOML file set.
"""

from __future__ import annotations

import argparse
import typing
from collections.abc import Iterable

from annotated_types import Ge, Gt, Le
from pydantic.fields import FieldInfo

from graphs.settings import Settings
from memory.index_config import backend_registry
from tools.core.argtypes import number


def _number_type(name: str, field: FieldInfo, integer: bool):
    lo, hi, lo_open = float("-inf"), float("inf"), False
    for bound in field.metadata:
        if isinstance(bound, Gt):
            lo, lo_open = bound.gt, True
        elif isinstance(bound, Ge):
            lo = bound.ge
        elif isinstance(bound, Le):
            hi = bound.le
        else:
            raise TypeError(f"setting {name}: no flag for the constraint {bound!r} (use gt, ge or le)")
    return number(lo, hi, integer=integer, lo_open=lo_open)


def _registry_choices(name: str) -> tuple[list[str], str]:
    """The names of the backend registry the setting ``name`` takes (``memory.index_config.backend_registry``) and a
    help line naming each."""
    registry = backend_registry(name)
    return registry.names(), registry.help(Settings.model_fields[name].default)


def _value_kwargs(name: str, field: FieldInfo, extra: dict) -> dict[str, typing.Any]:
    """``add_argument`` keywords that parse the value of a non-``bool`` field (choices or a bounded number)."""
    kind = field.annotation
    if extra.get("registry"):
        return {"choices": _registry_choices(name)[0]}
    if typing.get_origin(kind) is typing.Literal:
        return {"choices": list(typing.get_args(kind))}
    if kind in (int, float):
        return {"type": _number_type(name, field, integer=kind is int)}
    if kind is str or kind == str | None:
        return {}
    raise TypeError(f"setting {name}: no flag for the type {kind!r} (bool, int, float, str, str | None or Literal)")


def flag_spec(name: str, default: typing.Any = argparse.SUPPRESS,
              help_text: str | None = None) -> tuple[list[str], dict[str, typing.Any]]:
    """(option strings, ``add_argument`` keywords) of the ``Settings`` field ``name`` (module doc). ``default`` is the
    parsed value when the flag is left out (default: absent from the namespace, so variables and the file can set
    it), and the default the help states (the field's when absent); ``help_text`` replaces the field's description.

    Raises:
        KeyError: ``name`` is not a ``Settings`` field.
        TypeError: the field's type or constraint has no flag form.
    """
    field = Settings.model_fields[name]
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    kw: dict[str, typing.Any] = {"dest": name, "default": default}
    text = help_text or field.description or ""
    if extra.get("off"):  # a flag that turns the feature off: a switch to False, a backend to None
        kw.update(action="store_const", const=False if field.annotation is bool else None)
    elif field.annotation is bool:
        kw["action"] = "store_true"
    else:
        kw.update(_value_kwargs(name, field, extra))
        shown = field.default if default is argparse.SUPPRESS else default
        if extra.get("registry"):
            text += ": " + _registry_choices(name)[1]
        elif shown is not None and "(default" not in text:
            text += f" (default {shown:g})" if isinstance(shown, float) else f" (default {shown})"
    if "metavar" in extra:
        kw["metavar"] = extra["metavar"]
    kw["help"] = text
    return [extra.get("flag", "--" + name.replace("_", "-")), *extra.get("aliases", [])], kw


def add_setting_flags(parser: argparse.ArgumentParser, names: Iterable[str], defaults: dict | None = None,
                      target: argparse._ActionsContainer | None = None, helps: dict[str, str] | None = None) -> None:
    """Add the flags of the ``Settings`` fields ``names`` (``flag_spec``), in that order.

    ``defaults`` None: a flag left out is absent from the namespace (``ask``, ``batch``); a dict: left-out flags get
    the field's default, or the dict's value for that name (``eval``). With ``target`` (a group of ``parser``) every
    flag goes there; without, a field with a ``group`` goes to the group of that title, made on first use.
    ``helps`` gives a command's own help text for some names (what the setting means for that command).
    """
    groups: dict[str, argparse._ArgumentGroup] = {}
    for name in names:
        default = argparse.SUPPRESS if defaults is None else defaults.get(name, Settings.model_fields[name].default)
        flags, kw = flag_spec(name, default, (helps or {}).get(name))
        extra = Settings.model_fields[name].json_schema_extra
        group = extra.get("group") if isinstance(extra, dict) else None
        if target is None and group and group not in groups:
            groups[group] = parser.add_argument_group(group)
        into = target or groups.get(group, parser)
        into.add_argument(*flags, **kw)
        if isinstance(extra, dict) and "off_flag" in extra:  # a backend that can also be turned off
            into.add_argument(extra["off_flag"], dest=name, action="store_const", const=None, default=argparse.SUPPRESS,
                              help=extra.get("off_help", f"turn {name.replace('_', ' ')} off"))
