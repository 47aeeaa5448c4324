"""Bench formats ``evals.run`` can read, each registered by the module that defines it.

A ``BenchFormat`` says how a bench file is read into items, which methods answer it, how one item is
predicted (and a failure recorded), how the predictions are scored, and what the run writes beyond
``predictions.jsonl``, ``config.json`` and ``metrics.json``. A module registers its format with
``register_format`` when imported; ``evals.run`` imports the modules named in ``FORMAT_MODULES``. A new
format is one module (and its name in that list): ``jsonl`` lives in ``evals.evaluate``, ``vqau`` in
``evals.vqau``, ``mcq`` in ``evals.mcq``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

#: Modules that register the formats ``evals.run`` offers, imported by ``load_formats``.
FORMAT_MODULES = ("evals.evaluate", "evals.vqau", "evals.mcq")


@dataclass(frozen=True)
class BenchFormat:
    """One bench format (see the module doc).

    Attributes:
        name: the ``--bench-format`` value.
        help: one sentence for ``--help``.
        default_labels: label set when ``--labels`` is not given (``agents.taxonomy``).
        load: ``(args, labels) -> items`` (``args``: the parsed command line, for ``--bench``, ``--videos``);
            raises ``evals.bench.BenchError`` with a one-line message.
        predict: ``(method, item, video path, ctx) -> prediction`` (a ``prediction`` instance).
        failed: ``(method, item, error) -> prediction`` recording an item that raised.
        prediction: the pydantic model of one line of ``predictions.jsonl``.
        score: ``(items, predictions by id, text encoder, labels) -> metrics`` (JSON-serialisable).
        write: ``(items, predictions by id, metrics, out folder) -> results table`` (Markdown, also printed);
            it may write more files into the folder.
        summary: ``(method, metrics) -> one line`` printed before the table.
        methods: the methods that answer it (None: every method of ``evals.methods.METHODS``).
    """

    name: str
    help: str
    default_labels: str
    load: Callable[[argparse.Namespace, str], list]
    predict: Callable[[str, Any, Path, Any], BaseModel]
    failed: Callable[[str, Any, str], BaseModel]
    prediction: type[BaseModel]
    score: Callable[[list, dict, Any, str], dict]
    write: Callable[[list, dict, dict, Path], str]
    summary: Callable[[str, dict], str]
    methods: tuple[str, ...] | None = None


FORMATS: dict[str, BenchFormat] = {}


def register_format(fmt: BenchFormat) -> BenchFormat:
    """Add ``fmt`` to ``FORMATS`` under its name (a later registration of the same name replaces it)."""
    FORMATS[fmt.name] = fmt
    return fmt


def load_formats() -> dict[str, BenchFormat]:
    """``FORMATS`` after importing every module of ``FORMAT_MODULES``."""
    for module in FORMAT_MODULES:
        importlib.import_module(module)
    return FORMATS
