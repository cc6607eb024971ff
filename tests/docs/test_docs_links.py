"""The documentation's links lead somewhere: every relative link of README.md and docs/ names a file that exists,
and a link to a heading (``page.md#anchor``) names a heading of that page. Cheap and without mkdocs (the
core-only environment has none); ``test_docs_build`` runs the strict site build where mkdocs is installed."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.M)


def links(text: str) -> list[str]:
    """Targets of the Markdown links outside code blocks and code spans."""
    text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))
    return LINK.findall(text)


def slug(heading: str) -> str:
    """The anchor Python-Markdown's toc gives a heading (its default slugify, on the heading's text)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").replace("*", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    return {slug(h) for h in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))}


def broken(page: Path) -> list[str]:
    """The relative links of ``page`` whose file or heading does not exist."""
    bad = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        if not destination.exists():
            bad.append(f"{target} (no file {destination.relative_to(ROOT) if ROOT in destination.parents else destination})")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            bad.append(f"{target} (no heading #{anchor})")
    return bad


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_lead_to_existing_files_and_headings(page):
    assert broken(page) == []


def test_the_checker_sees_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "a.md").write_text("# Title `x`\n\n## Two words, here\n")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#title-x) [ok](a.md#two-words-here) [bad](nope.md) [bad](a.md#nowhere) "
                    "`[code](nope.md)` [web](https://example.org)\n")
    assert [b.split(" ")[0] for b in broken(page)] == ["nope.md", "a.md#nowhere"]


def test_every_docs_page_is_linked_from_another_page():
    """A page nobody links to is a page nobody reads: each docs page is linked from another page."""
    linked = {(page.parent / target.partition("#")[0]).resolve()
              for page in PAGES for target in links(page.read_text(encoding="utf-8"))
              if target.partition("#")[0] and not re.match(r"^[a-z]+:", target)}
    assert [str(p.relative_to(ROOT)) for p in PAGES[1:] if p.resolve() not in linked] == []
