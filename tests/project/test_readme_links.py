"""README and docs/: every relative link points at a file that exists (and a heading that exists, when it
names one), and README.md stays under 200 lines, so detail lives in docs/ and the README stays a map."""

import re
from pathlib import Path

import pytest

from helpers.paths import repo_root

ROOT = repo_root()
MAX_README_LINES = 200
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~)")


def _outside_fences(text: str) -> str:
    """The text without its fenced code blocks (a line there is neither a heading nor a link)."""
    kept, in_fence = [], False
    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
        elif not in_fence:
            kept.append(line)
    return "\n".join(kept)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = _outside_fences(path.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.MULTILINE)}


def broken_links(path: Path) -> list[str]:
    """Every relative link in `path` whose file, or heading within it, does not exist."""
    text = _outside_fences(path.read_text(encoding="utf-8"))
    prose = re.sub(r"`[^`]*`", "", text)  # a link written inside a code span is not a link
    broken = []
    for target in _LINK.findall(prose):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        heading_missing = (
            bool(anchor)
            and resolved.suffix == ".md"
            and resolved.exists()
            and anchor not in anchors(resolved)
        )
        if not resolved.exists() or heading_missing:
            broken.append(target)
    return broken


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    assert broken_links(path) == []


def test_readme_is_a_map_not_a_manual():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < MAX_README_LINES, f"README.md has {len(lines)} lines; move detail to docs/"
    assert "## Honest limits" in lines


def test_the_checker_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "other.md").write_text(
        "# Title\n\n## The write gate\n\n## What `make test` runs\n", encoding="utf-8"
    )
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#the-write-gate) [code](other.md#what-make-test-runs) [self](#here) [gone](missing.md) [bad](other.md#nowhere)\n"
        "[web](https://example.com/x) `[code](nothere.md)`\n\n## Here\n\n```\n[fenced](alsonot.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["missing.md", "other.md#nowhere"]
