"""The in-app guide's text: the pages of docs/guide/ as one Markdown document, so one text serves both.

The Help window renders it with Qt's Markdown support. Headings are addressed the way GitHub addresses
them (`slug`), so a link such as `numbers.md#speedup-s` means the same section on GitHub and in the
window, and the window's F1 anchors are the same names. Plain Python: no Qt here, and nothing is read
until the Help opens (start-up does not pay for it).
"""
from __future__ import annotations

import re
from pathlib import Path

# docs/ sits beside the packages, in the source tree and in an installed copy alike (pyproject's package-data)
GUIDE_DIR = Path(__file__).resolve().parents[2] / "docs" / "guide"
INDEX = "README.md"

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target): not an image's, not inside a code span (the caller strips those first)
_LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"`[^`]*`")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, only letters, digits, '_', '-' and spaces, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def prose_lines(markdown: str) -> list[str]:
    """The lines outside fenced code blocks (a '#' in a bash block is no heading, a link there no link)."""
    out: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return out


def headings(markdown: str) -> list[tuple[int, str]]:
    """(level, text) of each ATX heading, in order."""
    found = (_HEADING.match(line) for line in prose_lines(markdown))
    return [(len(m.group(1)), m.group(2)) for m in found if m]


def anchors(markdown: str) -> list[str]:
    """Every heading's anchor, a repeated one numbered -1, -2, ... as GitHub does."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for _, text in headings(markdown):
        base = slug(text)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(base if n == 0 else f"{base}-{n}")
    return out


def sections(markdown: str) -> dict[str, str]:
    """Each heading's anchor -> the Markdown under it, up to the next heading."""
    bodies: list[list[str]] = []
    for line in prose_lines(markdown):
        if _HEADING.match(line):
            bodies.append([])
        elif bodies:
            bodies[-1].append(line)
    return {name: "\n".join(body).strip() for name, body in zip(anchors(markdown), bodies)}


def links(markdown: str) -> list[tuple[str, str]]:
    """(text, target) of each inline link outside code."""
    found: list[tuple[str, str]] = []
    for line in prose_lines(markdown):
        found.extend(_LINK.findall(_CODE_SPAN.sub("", line)))
    return found


def guide_pages(guide_dir: Path = GUIDE_DIR) -> list[Path]:
    """The guide's pages in reading order: the index, then each page it links to, in the order it links."""
    index = guide_dir / INDEX
    pages = [index]
    for _, target in links(index.read_text(encoding="utf-8")):
        path = (guide_dir / target.split("#", 1)[0]).resolve()
        if target.endswith(".md") and path.parent == guide_dir.resolve() and path not in pages:
            pages.append(path)
    return pages


def _in_one_document(markdown: str, first_anchor: dict[str, str], guide_dir: Path) -> str:
    """Links between guide pages become links within the one document; links out of the guide keep their text."""
    def relink(m: re.Match[str]) -> str:
        text, target = m.group(1), m.group(2)
        if "://" in target or target.startswith(("mailto:", "#")):
            return m.group(0)
        page, _, anchor = target.partition("#")
        if page in first_anchor:
            return f"[{text}](#{anchor or first_anchor[page]})"
        # another part of docs/ (the reference, the design notes) is not in the window: say where it is
        where = (guide_dir / page).resolve()
        docs = guide_dir.resolve().parent
        return f"{text}, docs/{where.relative_to(docs).as_posix()}" if where.is_relative_to(docs) else text
    return _LINK.sub(relink, markdown)


def guide_markdown(guide_dir: Path = GUIDE_DIR) -> str:
    """The whole guide as one Markdown document, pages in reading order."""
    pages = guide_pages(guide_dir)
    texts = [p.read_text(encoding="utf-8") for p in pages]
    first_anchor = {p.name: (anchors(t) or [""])[0] for p, t in zip(pages, texts)}
    return "\n\n".join(_in_one_document(t, first_anchor, guide_dir) for t in texts)
