"""The committed notebooks as a reader meets them: no test machinery in the source, no monkey-patching,
solutions in their own notebooks, every stage's in-the-open build checked against the library."""

import re

import nbformat
import pytest

from helpers.paths import repo_root

NOTEBOOKS = sorted((repo_root() / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SOLUTIONS = repo_root() / "notebooks" / "solutions"
ALL = NOTEBOOKS + sorted(SOLUTIONS.glob("*.ipynb"))


def code_cells(path):
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def test_there_are_twelve_chapters_each_with_a_solutions_notebook():
    assert len(NOTEBOOKS) == 12
    assert sorted(p.name for p in SOLUTIONS.glob("*.ipynb")) == [f"{p.name[:2]}_solutions.ipynb" for p in NOTEBOOKS]


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_nbval_markers_are_cell_tags_not_comments(path):
    for cell in code_cells(path):
        assert "NBVAL" not in cell.source, f"{path.name}: use the nbval-ignore-output tag, not a comment"


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_no_cell_patches_a_module(path):
    patching = re.compile(r"mock\.patch|monkeypatch|^\s*(?:gate|consolidation|tools|llm)\.[A-Za-z_]+\s*=", re.M)
    for cell in code_cells(path):
        assert not patching.search(cell.source), f"{path.name}: pass options, do not patch:\n{cell.source}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_chapter_points_to_its_solutions_and_holds_none(path):
    cells = nbformat.read(path, as_version=4).cells
    heading = [i for i, c in enumerate(cells) if "### Solutions" in c.source]
    assert heading == [len(cells) - 1], f"{path.name}: the solutions heading must be the last cell"
    assert cells[-1].cell_type == "markdown" and f"solutions/{path.name[:2]}_solutions.ipynb" in cells[-1].source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_chapter_says_where_it_sits_in_the_lifecycle(path):
    first = nbformat.read(path, as_version=4).cells[:2]
    text = "\n".join(c.source for c in first)
    assert "lifecycle" in text.lower() and "```mermaid" in "\n".join(
        c.source for c in nbformat.read(NOTEBOOKS[0], as_version=4).cells)


@pytest.mark.parametrize("path", NOTEBOOKS[1:], ids=lambda p: p.name)
def test_each_stage_is_built_in_the_open_and_checked_against_the_library(path):
    # The build cell ends in an assert that compares the reader's version with the library's.
    checks = [c for c in code_cells(path) if re.search(r"(my_|My|Tiny|mine\b)", c.source) and "assert" in c.source]
    assert checks, f"{path.name}: no in-the-open build checked against the library"


# Every chapter carries the line.
NAMED = [p for p in NOTEBOOKS if p.name[:2] != "NN"]  # every chapter
_MODULE = re.compile(r"`(helpers(?:\.\w+)+)")


def built_and_used(path):
    """The modules a chapter's first cell says it builds and the ones it says it uses."""
    first = nbformat.read(path, as_version=4).cells[0].source
    assert "**Built here:**" in first and "**Used from helpers:**" in first, f"{path.name}: no 'Built here' line"
    built, used = first.split("**Built here:**", 1)[1].split("**Used from helpers:**", 1)
    used = used.split("\n\n", 1)[0]
    return _MODULE.findall(built), _MODULE.findall(used)


def module_of(dotted):
    """The module a dotted name lives in (its longest importable prefix); the rest must be its attributes."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 1, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)  # an AttributeError names what the line got wrong
        return ".".join(parts[:cut])
    pytest.fail(f"{dotted} is not a module of helpers")


@pytest.mark.parametrize("path", NAMED, ids=lambda p: p.name)
def test_each_chapter_names_the_modules_it_builds_and_uses(path):
    built, used = built_and_used(path)
    assert built and used, f"{path.name}: name at least one module built and one used"
    modules = {module_of(dotted) for dotted in built}
    for dotted in used:
        module_of(dotted)
    code = "\n".join(c.source for c in code_cells(path))
    assert any(re.search(rf"(from|import) {re.escape(m)}\b", code) for m in modules), (
        f"{path.name}: the notebook imports none of the modules it says it builds: {sorted(modules)}")
