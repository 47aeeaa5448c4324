"""The README's two commands choose their interpreter: ``make`` makes the venv with a Python it can install into (3.11
or 3.12) and stops in one line, before making anything, when it has none. Runs the real Makefile with ``make``;
the unsupported interpreters are stand-ins that answer the Makefile's check and ``-V`` as Python 3.10 and 3.13 do (a
machine need not have those installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def stand_in(folder: Path, name: str, version: str) -> Path:
    """An executable ``folder/name`` that, like that Python version, fails ``-c`` of the Makefile's version check
    (exit status 1) and prints ``Python <version>`` for ``-V``."""
    path = folder / name
    path.write_text(f'#!/bin/sh\n[ "$1" = "-V" ] && {{ echo "Python {version}"; exit 0; }}\nexit 1\n')
    path.chmod(0o755)
    return path


def run_make(target: str, path: str, tmp_path: Path, *extra: str, dry: bool = False) -> subprocess.CompletedProcess:
    """``make [-n] TARGET VENV=tmp_path/venv EXTRA...`` in the repository, with ``PATH`` set to ``path``."""
    env = {**os.environ, "PATH": path}
    env.pop("PYTHON", None)
    args = ["make", *(["-n"] if dry else []), target, f"VENV={tmp_path / 'venv'}", *extra]
    return subprocess.run(args, check=False, cwd=REPO, env=env, capture_output=True, text=True, timeout=60)


def only_bin(tmp_path: Path, **links: str) -> Path:
    """A folder holding ``make`` and the given names (name -> target path), to be the whole ``PATH``."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    (folder / "make").symlink_to(shutil.which("make"))
    for name, target in links.items():
        (folder / name).symlink_to(target)
    return folder


def test_unsupported_python3_alone_stops_in_one_line_and_makes_nothing(tmp_path):
    folder = only_bin(tmp_path)
    stand_in(folder, "python3", "3.13.0")
    done = run_make("install", str(folder), tmp_path)
    assert done.returncode != 0
    said = [line for line in done.stderr.splitlines() if line.startswith("make: affectseek")]
    assert said == [("make: affectseek needs Python 3.11 or 3.12, and none of python3, python3.12 and python3.11 on "
                     "the path is one (python3: Python 3.13.0); install one, or name it: "
                     "make PYTHON=/path/to/python3.11")]
    assert not (tmp_path / "venv").exists()


def test_named_python_of_another_version_is_refused(tmp_path):
    folder = only_bin(tmp_path)
    old = stand_in(folder, "python3.10", "3.10.13")
    done = run_make("install", str(folder), tmp_path, f"PYTHON={old}")
    assert done.returncode != 0
    assert f"make: affectseek needs Python 3.11 or 3.12; PYTHON={old} is Python 3.10.13" in done.stderr
    assert not (tmp_path / "venv").exists()


def test_a_supported_python_is_found_past_an_unsupported_python3(tmp_path):
    if not (3, 11) <= sys.version_info[:2] <= (3, 12):
        pytest.skip("the suite's own interpreter is the supported one this test names")
    folder = only_bin(tmp_path, **{"python3.12": sys.executable})
    stand_in(folder, "python3", "3.10.13")
    done = run_make("install", str(folder), tmp_path, dry=True)
    assert done.returncode == 0, done.stderr
    assert f"python3.12 -m venv {tmp_path / 'venv'}" in done.stdout.splitlines()


def test_python3_is_taken_when_it_is_supported(tmp_path):
    if not (3, 11) <= sys.version_info[:2] <= (3, 12):
        pytest.skip("the suite's own interpreter is the supported one this test names")
    folder = only_bin(tmp_path, python3=sys.executable)
    done = run_make("install", str(folder), tmp_path, dry=True)
    assert done.returncode == 0, done.stderr
    assert f"python3 -m venv {tmp_path / 'venv'}" in done.stdout.splitlines()
