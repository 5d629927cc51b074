"""Every relative link in the README, CONTRIBUTING and docs/ points at a file (and heading) that exists.

The README is a front page that links into docs/, one file per subject (STYLE 14); a file renamed
or a heading reworded would otherwise leave a dead link nobody notices. Anchors are checked with
GitHub's rule for heading ids: lower case, punctuation dropped, spaces to hyphens, ``-1``, ``-2``
for repeats.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO

PAGES = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(path: Path) -> list[str]:
    """The file's lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(path: Path) -> set[str]:
    """The heading ids GitHub gives a Markdown file."""
    seen: dict[str, int] = {}
    ids = set()
    for line in prose_lines(path):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).replace("`", "").lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        ids.add(slug if n == 0 else f"{slug}-{n}")
    return ids


def broken_links(page: Path) -> list[str]:
    """Each relative link of ``page`` whose file or heading does not exist, with the reason."""
    broken = []
    for line in prose_lines(page):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            if not dest.exists():
                broken.append(f"{target}: no file {dest}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(page: Path):
    assert broken_links(page) == []


def test_docs_exist_and_readme_links_every_one():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    docs = sorted(p.name for p in (REPO / "docs").glob("*.md"))
    assert docs, "docs/ holds no Markdown files"
    assert [d for d in docs if f"(docs/{d})" not in readme] == []


def test_readme_stays_a_front_page():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150
    assert any("make run" in line for line in lines[:15]) and any("make test" in line for line in lines[:15])


def test_the_checker_catches_a_dead_link(tmp_path):
    (tmp_path / "a.md").write_text("# Top\n\n[ok](#top) [gone](b.md) [bad](a.md#nowhere)\n"
                                   "```\n[in code](ignored.md)\n```\n", encoding="utf-8")
    assert broken_links(tmp_path / "a.md") == [
        f"b.md: no file {tmp_path / 'b.md'}", "a.md#nowhere: no heading #nowhere in a.md"]
