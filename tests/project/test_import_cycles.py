"""No import cycles in helpers/: the layers point one way.

The graph is read from the source with `ast`, so an import inside a function (a "late" import
that hides a cycle at load time) counts like one at the top. Imports under `if TYPE_CHECKING:`
never run and are left out: a type named in an annotation is not a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

HELPERS = Path(__file__).resolve().parents[2] / "helpers"


def _modules(root: Path) -> dict[str, Path]:
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes inside `if TYPE_CHECKING:` blocks."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def _parse(source: str) -> ast.Module:
    """ast.parse, asked again on CPython 3.11's spurious "AST constructor recursion depth mismatch"
    (seen once in a full xdist run on consolidation_claims.py; the same file parses on a retry)."""
    for _ in range(2):
        try:
            return ast.parse(source)
        except SystemError:
            continue
    return ast.parse(source)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the package at `root` -> the package's modules it imports (anywhere in it)."""
    modules = _modules(root)
    package = root.name
    graph = {}
    for name, path in modules.items():
        tree = _parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_only(tree)
        deps = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.split(".")[0] == package:
                    for alias in node.names:  # `from helpers import consolidation` names a module
                        full = f"{node.module}.{alias.name}"
                        deps.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name.split(".")[0] == package}
        graph[name] = {d for d in deps if d in modules and d not in (name, package)}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_helpers_has_no_import_cycle():
    graph = import_graph(HELPERS)
    assert len(graph) > 40  # the whole package was read, subpackages included
    assert "helpers.consolidation_claims" in graph["helpers.store_erasure"]
    assert cycles(graph) == []


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "helpers"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_late_import_cycle_is_found(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from helpers.b import f\n",
        "b.py": "def f():\n    from helpers import a  # late\n    return a\n",
        "c.py": "import helpers.a\n",
    })
    assert cycles(import_graph(root)) == [["helpers.a", "helpers.b"]]


def test_a_type_checking_import_is_not_a_dependency(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from helpers.b import f\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from helpers.a import X\n",
        "sub/__init__.py": "",
        "sub/x.py": "from helpers.sub.y import g\n",
        "sub/y.py": "from helpers.sub import x\n",
    })
    assert cycles(import_graph(root)) == [["helpers.sub.x", "helpers.sub.y"]]
