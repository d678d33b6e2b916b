"""The docs' links stay inside the repository and lead somewhere: every relative link of README.md and
docs/*.md names a file that exists (and, with ``#anchor``, a heading or anchor of that page), and no
page points outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs import doc_blocks as db

ROOT = db.ROOT
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^\s*```.*?^\s*```", re.S | re.M)


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors: headings lowercased, punctuation dropped, spaces as dashes; plus <a id=...>."""
    text = path.read_text()
    out = set(re.findall(r'<a id="([^"]+)"', text))
    for line in _FENCE.sub("", text).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def _links(path: Path) -> list[str]:
    return _LINK.findall(_FENCE.sub("", path.read_text()))


@pytest.mark.parametrize("page", db.pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_links_resolve_inside_the_repository(page: Path) -> None:
    text = page.read_text()
    assert "../shared" not in text, f"{page.name} points outside the repository"
    assert "/work/" not in text, f"{page.name} names a path of a development machine"
    for link in _links(page):
        if re.match(r"[a-z]+:", link):
            continue  # an absolute URL (a library's site), not a file of ours
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.is_relative_to(ROOT), f"{page.name}: {link} leaves the repository"
        assert path.exists(), f"{page.name}: {link} does not exist"
        if anchor and path.suffix == ".md":
            assert anchor in _anchors(path), f"{page.name}: {link}: no such heading"


def test_anchors_follow_github() -> None:
    page = ROOT / "docs" / "nn.md"
    assert "torchs-import-paths" in _anchors(page)
    assert "ttsave--ttload-safetensors" in _anchors(page)
