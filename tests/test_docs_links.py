"""The documentation holds together: its relative links resolve, the README stays short.

Every relative link of ``README.md``, ``deploy/README.md`` and ``docs/**/*.md``
must name a file or folder of the repository, and a ``#fragment`` must name a
heading of the page it points to (GitHub's anchors).  The README is the front
page (issue 52: at most 200 lines, the rest in ``docs/``), and CI runs the test
command it shows (``.ci/run``), so that command must stay in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 200
TEST_COMMAND = "bash scripts/test.sh"

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class BrokenLink:
    """A link in ``page`` whose ``target`` does not resolve, and why."""

    page: str
    target: str
    reason: str


def _prose(text: str) -> str:
    """``text`` without fenced code blocks and code spans, where brackets are not links."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown page (``#some-heading``)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for raw in _HEADING.findall(_FENCE.sub("", text)):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", raw)  # a link's text only
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def broken_links(page: Path, root: Path = ROOT) -> list[BrokenLink]:
    """The relative links of ``page`` that name nothing in ``root``'s tree."""
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(root).as_posix()
    broken = []
    for target in _LINK.findall(_prose(text)):
        if _SCHEME.match(target) or target.startswith("//"):
            continue  # an address elsewhere: not this test's to check
        path_part, _, fragment = target.partition("#")
        resolved = (page.parent / path_part).resolve() if path_part else page
        if path_part and not resolved.is_relative_to(root.resolve()):
            broken.append(BrokenLink(name, target, "points outside the repository"))
        elif not resolved.exists():
            broken.append(BrokenLink(name, target, "no such file"))
        elif (
            fragment
            and resolved.suffix == ".md"
            and fragment not in anchors(resolved.read_text(encoding="utf-8"))
        ):
            broken.append(BrokenLink(name, target, "no such heading"))
    return broken


def pages() -> list[Path]:
    """The Markdown pages whose links are checked."""
    return [ROOT / "README.md", ROOT / "deploy" / "README.md", *sorted(ROOT.glob("docs/**/*.md"))]


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_the_readme_is_short_and_shows_the_test_command() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    assert TEST_COMMAND in text


def test_the_ci_runs_the_readmes_test_command() -> None:
    assert TEST_COMMAND in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_docs_link_the_architecture_and_the_figures() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in ("architecture", "running", "bots", "ai", "benchmarks", "performance"):
        assert f"docs/{page}.md" in readme, page


def test_broken_links_and_headings_are_found(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Other page\n\n## Its `code` part\n")
    page = tmp_path / "docs" / "page.md"
    page.write_text(
        "# Page\n\n"
        "[fine](other.md) [heading](other.md#its-code-part) [here](#page) "
        "[web](https://example.org/x) `[in code](missing.md)`\n\n"
        "```\n[in a block](missing.md)\n```\n\n"
        "[gone](missing.md) [no heading](other.md#nothing) [outside](../../x.md)\n"
    )
    found = {(b.target, b.reason) for b in broken_links(page, tmp_path)}
    assert found == {
        ("missing.md", "no such file"),
        ("other.md#nothing", "no such heading"),
        ("../../x.md", "points outside the repository"),
    }


def test_anchors_follow_github() -> None:
    text = "# Run a server\n## `bench.ai_latency`\n## The AI, off the loop\n## Dup\n## Dup\n"
    assert anchors(text) == {
        "run-a-server",
        "benchai_latency",
        "the-ai-off-the-loop",
        "dup",
        "dup-1",
    }
