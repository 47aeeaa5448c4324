"""Argument types for the command lines: finite numbers within stated bounds.

``argparse`` names the option in its error (``argument --fps: must be a number in (0, 30], got inf``)
and exits with status 2, so an infinite, NaN, non-positive or absurd value never reaches the code.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable


def number(lo: float, hi: float, integer: bool = False, lo_open: bool = False) -> Callable[[str], float | int]:
    """An argparse ``type=`` that accepts a finite number in [lo, hi] (or (lo, hi] with ``lo_open``).

    Raises (inside argparse): ``argparse.ArgumentTypeError`` with the bounds and the value given.
    """
    span = f"{'(' if lo_open else '['}{lo:g}, {hi:g}]"
    kind = "an integer" if integer else "a number"

    def parse(text: str) -> float | int:
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {kind} in {span}, got {text!r}") from None
        if not math.isfinite(value) or value > hi or value < lo or (lo_open and value == lo):
            raise argparse.ArgumentTypeError(f"must be {kind} in {span}, got {text}")
        return value

    parse.__name__ = "integer" if integer else "number"
    return parse


class CommandParser(argparse.ArgumentParser):
    """The parser of every ``affectseek`` command: a usage error (a bad value, an unknown option, a missing argument)
    is one line on standard error, ``PROG: error: MESSAGE (PROG --help lists the options)``, and exit status 2, as
    every other bad input is; ``--help`` prints the full usage as before. An argument holding a NUL character (no
    shell passes one, a caller in Python may) is such an error: no file name or text option takes it."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help lists the options)\n")

    def parse_known_args(self, args=None, namespace=None):
        """As ``argparse``'s, after refusing an argument that holds a NUL character (``error``)."""
        for arg in sys.argv[1:] if args is None else args:
            if isinstance(arg, str) and "\x00" in arg:
                self.error(f"argument {arg!r} holds a NUL character")
        return super().parse_known_args(args, namespace)
