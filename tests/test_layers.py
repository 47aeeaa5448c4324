"""The package layers import only downward: tools <- memory <- indexing <- agents <- graphs <- evals <- app
<- studies (the training and measurement scripts of a source checkout, not installed).

Every ``import`` and ``from ... import`` in every module counts, including those inside functions.
The one exception is ``agents/run.py``, the shim that keeps the documented ``python -m agents.run``
working by handing over to ``app.ask`` when run as a script.
"""

from __future__ import annotations

import ast
import re

from tests.conftest import REPO

LAYERS = ("tools", "memory", "indexing", "agents", "graphs", "evals", "app", "studies")
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


#: The rooms of ``tools`` in import order: each imports only itself and the rooms before it.
TOOL_ROOMS = ("core", "signals", "perception")


def test_the_rooms_of_tools_import_only_the_rooms_before_them():
    upward = []
    for rank, room in enumerate(TOOL_ROOMS):
        for path in sorted((REPO / "tools" / room).rglob("*.py")):
            for name in _imports(path):
                parts = name.split(".")
                if parts[0] == "tools" and len(parts) > 1 and parts[1] in TOOL_ROOMS \
                        and TOOL_ROOMS.index(parts[1]) > rank:
                    upward.append(f"{path.relative_to(REPO).as_posix()} imports {name}")
    assert upward == []


def test_every_module_of_tools_lives_in_a_room():
    loose = {p.name for p in (REPO / "tools").glob("*.py")} - {"__init__.py"}
    rooms = {p.name for p in (REPO / "tools").iterdir() if (p / "__init__.py").exists()}
    assert loose == set() and rooms == set(TOOL_ROOMS)


def test_the_layer_test_sees_every_package():
    found = {p.parent.name for p in REPO.glob("*/__init__.py")} - {"tests", "benches"}
    assert found == set(LAYERS)


def _module_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (any ``import``, also inside functions; ``from M import N``
    counts M, and M.N when that is a module)."""
    modules = {}
    for layer in LAYERS:
        for path in (REPO / layer).rglob("*.py"):
            name = ".".join(path.relative_to(REPO).with_suffix("").parts)
            modules[name.removesuffix(".__init__")] = path
    graph = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def test_no_import_circle():
    """No module reaches itself through imports (a circle hides an order both ends depend on)."""
    graph = _module_graph()
    circles = set()
    for start in graph:
        stack, seen = [(start, (start,))], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.add(" -> ".join(sorted(path)))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, (*path, nxt)))
    assert circles == set()


def test_the_installed_packages_hold_no_study_or_training_script():
    """``pyproject.toml`` installs the layers up to ``app``; ``studies`` (training, fitting, measurements) stays
    in the source tree, and no installed module is a training or study script."""
    found = re.search(r"\[tool\.setuptools\.packages\.find\]\ninclude = \[([^]]*)\]", (REPO / "pyproject.toml").read_text())
    include = re.findall(r'"([^"]+)"', found.group(1))
    assert {p.rstrip("*") for p in include} == set(LAYERS[:-1])
    installed = [p for layer in LAYERS[:-1] for p in (REPO / layer).rglob("*.py")]
    assert not [p.name for p in installed if p.name.startswith(("train_", "fit_"))]


MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60


def test_no_module_over_300_lines_no_function_over_60():
    """Every module of the installed packages has at most ``MAX_MODULE_LINES`` lines (as ``wc -l`` counts them)
    and every function or method in them at most ``MAX_FUNCTION_LINES`` (``def`` line to last line, decorators
    excluded): a module or function that outgrows them is split along a seam, not exempted."""
    too_long = []
    for layer in LAYERS[:-1]:
        for path in sorted((REPO / layer).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            text = path.read_text()
            lines = text.count("\n")
            if lines > MAX_MODULE_LINES:
                too_long.append(f"{rel}: {lines} lines")
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = node.end_lineno - node.lineno + 1
                    if length > MAX_FUNCTION_LINES:
                        too_long.append(f"{rel}:{node.lineno} {node.name}: {length} lines")
    assert too_long == []


def _code_mentions(path, word: str) -> bool:
    """Whether ``word`` appears in the code of ``path``: names and string constants, docstrings left out."""
    tree = ast.parse(path.read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                and word in node.value.lower():
            return True
        if isinstance(node, (ast.Name, ast.Attribute, ast.alias, ast.ImportFrom)):
            text = getattr(node, "id", None) or getattr(node, "attr", None) or getattr(node, "name", None) \
                or getattr(node, "module", None) or ""
            if word in text.lower():
                return True
    return False


def test_an_expression_backend_is_its_module_a_registry_entry_and_its_pin():
    """What adding an expression backend takes, counted on the fetched ``hsemotion``: its module, its entry in the expression
    registry, and the pin of the file a user fetches for it; no command, setting or graph names it."""
    installed = [p for layer in LAYERS[:-1] for p in sorted((REPO / layer).rglob("*.py"))]
    found = {p.relative_to(REPO).as_posix() for p in installed if _code_mentions(p, "hsemotion")}
    assert found == {"tools/perception/hsemotion.py", "tools/perception/expression.py", "tools/core/pins.py"}


def test_every_shipped_head_has_its_data_terms_in_the_licence_and_a_card():
    """The MIT licence covers the code; each trained head shipped in ``tools/models`` (a ``.npz``) is fitted on data
    with terms of its own, so ``LICENSE`` (the package metadata's licence file) names it and its model card."""
    licence = (REPO / "LICENSE").read_text()
    heads = sorted(p.name for p in (REPO / "tools" / "models").glob("*.npz"))
    assert heads and all(h in licence for h in heads), [h for h in heads if h not in licence]
    cards = re.findall(r"tools/models/(\w+\.md)", licence)
    assert cards and all((REPO / "tools" / "models" / c).is_file() for c in cards)
