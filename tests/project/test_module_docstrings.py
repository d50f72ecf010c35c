"""Each module of helpers/ names its stage and the notebook that teaches it, the same way, and the
package's own docstring lists every module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELPERS = ROOT / "helpers"
# "Stage 7 — consolidation (notebook 07): ..." or "(notebook 08; production: notebook 11): ..."
FIRST_LINE = re.compile(r"Stage (\d+) — [^()]+ \(notebook (\d\d)[;)]")
MODULES = sorted([p for p in HELPERS.glob("*.py") if p.name != "__init__.py"]
                 + [p for p in HELPERS.glob("*/__init__.py")])


def first_line(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False) or ""
    return doc.split("\n", 1)[0]


def module_name(path: Path) -> str:
    return path.parent.name if path.name == "__init__.py" else path.stem


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_each_module_names_its_stage_and_notebook(path):
    found = FIRST_LINE.match(first_line(path))
    assert found, f"{path.name}: the docstring's first line is {first_line(path)!r}"
    stage, notebook = found.groups()
    assert int(stage) == int(notebook), "the stage number is the notebook's number"
    assert list((ROOT / "notebooks").glob(f"{notebook}_*.ipynb")), f"no notebook {notebook}"


def test_the_package_docstring_lists_every_module():
    listed = set(re.findall(r"^\s{4}(\w+)\s", ast.get_docstring(ast.parse((HELPERS / "__init__.py").read_text())),
                            re.M))
    assert listed == {module_name(p) for p in MODULES}


def test_a_wrong_first_line_does_not_match():
    assert not FIRST_LINE.match("Stage 3 — the memory policy: how the model weighs memory.")  # no notebook
    assert FIRST_LINE.match("Stage 3 — rendering (notebook 03): the state as text.")
