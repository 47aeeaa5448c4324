"""The package layers import only downward: tools <- memory <- indexing <- agents <- graphs <- evals <- app.

Every ``import`` and ``from ... import`` in every module counts, including those inside functions.
The one exception is ``agents/run.py``, the shim that keeps the documented ``python -m agents.run``
working by handing over to ``app.ask`` when run as a script.
"""

from __future__ import annotations

import ast

from tests.conftest import REPO

LAYERS = ("tools", "memory", "indexing", "agents", "graphs", "evals", "app")
SHIMS = {"agents/run.py": {"app.ask"}}


def _imports(path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_module_imports_a_layer_above_its_own():
    upward = []
    for rank, layer in enumerate(LAYERS):
        for path in sorted((REPO / layer).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            for name in _imports(path) - SHIMS.get(rel, set()):
                top = name.split(".")[0]
                if top in LAYERS and LAYERS.index(top) > rank:
                    upward.append(f"{rel} imports {name}")
    assert upward == []


def test_the_layer_test_sees_every_package():
    found = {p.parent.name for p in REPO.glob("*/__init__.py")} - {"tests", "benches"}
    assert found == set(LAYERS)
