"""The players' rules (Markdown) laid out for a terminal, and paged when long.

The rule files are written for GitHub and ``docs/rules``; printed raw they
showed ``**bold**``, table pipes and "see ``cards.md``" (issue 53).  Here
headings stand out (bold in colour, underlined without), tables are aligned
in columns (or one ``header: value`` line per cell when too wide), lists and
paragraphs are wrapped to the width, code spans lose their backticks, and a
link to another rule file reads ``cardavia rules cards``: the command that
shows it.  Only the Markdown these files use is read; anything else passes
through as text.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from client_cli.style import Style, visible_len

_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITEM = re.compile(r"^(\s*)([-*]|\d+\.)\s+(.*)$")
_RULE_ROW = re.compile(r"^\|?\s*:?-{3,}")
_KEEP = "\x00"
"""Stands for a space that must not break a line (inside a short code span)."""
_UNBROKEN = 20
"""Code spans up to this long (``-o deals=8``, ``cardavia rules GAME``) stay on one line."""


def topic_command(target: str, topics: Iterable[str]) -> str | None:
    """``cardavia rules cards`` for a link to ``cards.md`` (or ``README.md``: the index),
    None for any other target."""
    name = target.split("#", 1)[0].rsplit("/", 1)[-1]
    if not name.endswith(".md"):
        return None
    stem = name[:-3]
    if stem.lower() == "readme":
        return "cardavia rules"
    return f"cardavia rules {stem}" if stem in topics else None


class MarkdownText:
    """Markdown to terminal lines at ``width`` columns, in ``style`` (colour or plain)."""

    def __init__(self, width: int, style: Style, topics: Iterable[str]) -> None:
        self.width = max(20, width)
        self.style = style
        self.topics = frozenset(topics)

    # -- inline ----------------------------------------------------------------------
    def inline(self, text: str) -> str:
        """Links to rule files as their command, code spans and bold without markers."""

        def link(m: re.Match[str]) -> str:
            command = topic_command(m.group(2), self.topics)
            if command is None:
                return f"{m.group(1)} ({m.group(2)})"
            label = m.group(1)
            if label.endswith(".md"):
                return f"'{command}'"
            return f"{label} ('{command}')"

        def code(m: re.Match[str]) -> str:
            command = topic_command(m.group(1), self.topics)
            if command is not None:
                return f"'{command}'".replace(" ", _KEEP)
            short = len(m.group(1)) <= _UNBROKEN
            return m.group(1).replace(" ", _KEEP) if short else m.group(1)

        text = _LINK.sub(link, text)
        text = _CODE.sub(code, text)
        return _BOLD.sub(lambda m: self.style.bold(m.group(1)), text)

    def wrapped(self, text: str, first: str = "", rest: str | None = None) -> list[str]:
        """``text`` (already inline-rendered) wrapped to the width after ``first`` on the
        first line and ``rest`` (default: as wide as ``first``) on the others."""
        rest = " " * visible_len(first) if rest is None else rest
        lines: list[str] = []
        line = first
        empty = True
        for word in text.split():
            if not empty and visible_len(line) + 1 + visible_len(word) > self.width:
                lines.append(line)
                line, empty = rest, True
            line = line + word if empty else f"{line} {word}"
            empty = False
        lines.append(line)
        return lines

    # -- blocks ----------------------------------------------------------------------
    def lines(self, markdown: str) -> list[str]:
        """The whole document as terminal lines."""
        out: list[str] = []
        source = markdown.splitlines()
        i = 0
        while i < len(source):
            line = source[i]
            stripped = line.strip()
            if not stripped:
                if out and out[-1] != "":
                    out.append("")
                i += 1
            elif stripped.startswith("```"):
                i += 1
                while i < len(source) and not source[i].strip().startswith("```"):
                    out.append("    " + source[i])
                    i += 1
                i += 1
            elif stripped.startswith("#"):
                out.extend(self.heading(stripped))
                i += 1
            elif stripped.startswith("|"):
                rows = []
                while i < len(source) and source[i].strip().startswith("|"):
                    rows.append(source[i].strip())
                    i += 1
                out.extend(self.table(rows))
            elif _ITEM.match(line):
                i = self.item(source, i, out)
            else:
                para = [stripped]
                i += 1
                while i < len(source) and self.continues(source[i]):
                    para.append(source[i].strip())
                    i += 1
                text = " ".join(para)
                if text.startswith(">"):
                    out.extend(self.wrapped(self.inline(text.lstrip("> ")), "  "))
                else:
                    out.extend(self.wrapped(self.inline(text)))
        while out and out[-1] == "":
            out.pop()
        return [x.replace(_KEEP, " ") for x in out]

    @staticmethod
    def continues(line: str) -> bool:
        """Whether ``line`` goes on the paragraph above (not a new block)."""
        s = line.strip()
        return bool(s) and not (s.startswith(("#", "|", "```")) or _ITEM.match(line))

    def heading(self, text: str) -> list[str]:
        level = len(text) - len(text.lstrip("#"))
        title = self.inline(text.lstrip("#").strip())
        if self.style.colour:
            return [
                self.style.bold(x) for x in self.wrapped(title.upper() if level == 1 else title)
            ]
        lines = self.wrapped(title)
        return [*lines, ("=" if level == 1 else "-") * max(visible_len(x) for x in lines)]

    def item(self, source: list[str], i: int, out: list[str]) -> int:
        """One list item (with its continuation lines) from ``source[i]``; the next index."""
        m = _ITEM.match(source[i])
        assert m is not None
        indent, marker, text = m.groups()
        parts = [text.strip()]
        i += 1
        while i < len(source) and self.continues(source[i]) and source[i].startswith("  "):
            parts.append(source[i].strip())
            i += 1
        bullet = "•" if marker in ("-", "*") else marker
        first = "  " + " " * len(indent) + bullet + " "
        out.extend(self.wrapped(self.inline(" ".join(parts)), first))
        return i

    def table(self, rows: list[str]) -> list[str]:
        """Aligned columns, or ``header: value`` lines when the columns do not fit."""
        cells = [
            [self.inline(c.strip()) for c in row.strip().strip("|").split("|")]
            for row in rows
            if not _RULE_ROW.match(row)
        ]
        if not cells:
            return []
        head, *body = cells
        n = max(len(r) for r in cells)
        cells = [r + [""] * (n - len(r)) for r in cells]
        widths = [max(visible_len(r[c]) for r in cells) for c in range(n)]
        if sum(widths) + 2 * (n - 1) + 2 <= self.width:
            out = []
            for k, row in enumerate(cells):
                text = "  ".join(
                    cell + " " * (w - visible_len(cell))
                    for cell, w in zip(row, widths, strict=True)
                ).rstrip()
                out.append("  " + (self.style.bold(text) if k == 0 and self.style.colour else text))
                if k == 0 and not self.style.colour:
                    out.append("  " + "-" * min(sum(widths) + 2 * (n - 1), self.width - 2))
            return out
        out = []
        for row in body or [head]:
            first, *others = row
            out.extend(self.wrapped(first, "  • "))
            for name, cell in zip(head[1:], others, strict=False):
                if cell:
                    out.extend(self.wrapped(cell, f"      {name}: ", "        "))
        return out


def render(markdown: str, width: int, style: Style, topics: Iterable[str]) -> list[str]:
    """``markdown`` as terminal lines (see :class:`MarkdownText`)."""
    return MarkdownText(width, style, topics).lines(markdown)


def page(
    lines: list[str],
    out: TextIO | None = None,
    rows: int | None = None,
    pager: Callable[[str, list[str]], int] | None = None,
) -> None:
    """Print ``lines``; through ``$PAGER`` (default ``less -R``: colours pass) when ``out``
    is a terminal and they are more than the screen holds, as ``man`` and ``git`` do.
    A pager that cannot start, or fails, leaves the text printed as it is."""
    out = out if out is not None else sys.stdout
    text = "\n".join(lines) + "\n"
    tty = bool(getattr(out, "isatty", lambda: False)())
    height = rows if rows is not None else shutil.get_terminal_size((80, 24)).lines
    if tty and len(lines) > height - 1:
        command = shlex.split(os.environ.get("PAGER") or "less -R")
        if command and (pager or run_pager)(text, command) == 0:
            return
    out.write(text)
    out.flush()


def run_pager(text: str, command: list[str]) -> int:
    """Feed ``text`` to ``command``; its exit status (127: it could not start)."""
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")  # quit at once when it fits after all, keep colours
    try:
        done = subprocess.run(command, input=text, text=True, env=env, check=False)
    except OSError:
        return 127
    return done.returncode
