"""Display names and chat text: normalised, visible, not impersonating anyone.

Names (checked once, at ``hello``):

- normalised to Unicode NFKC (full-width, ligatures, mathematical letters
  become plain ones), outer spaces stripped, inner runs of spaces made one;
- 1 to :data:`NAME_MAX` characters after that;
- no control, format, private-use, unassigned, surrogate or separator
  characters (Unicode categories C*, Zl, Zp): this refuses the bidi controls
  U+202A–202E and U+2066–2069, zero-width U+200B–200F, U+2060–2064, U+FEFF
  and the tag characters U+E0000–E007F;
- no characters that render blank (:data:`BLANK`: Hangul fillers U+115F,
  U+1160, U+3164, U+FFA0, braille blank U+2800, …), no variation selectors,
  at most :data:`MARKS_MAX` combining marks on one letter, and at least one
  letter, digit, punctuation or symbol;
- not a look-alike of a reserved word (:func:`is_reserved`: "Server",
  "System", "Admin", "AI", "AI 1 (hard)", "Cardavia" …).

Uniqueness at a table compares :func:`skeleton` s: casefold, NFKC, accents
dropped, and the small look-alike table :data:`LOOKALIKES` (Cyrillic and
Greek letters that look Latin, ``0``/``o``, ``1``/``l``/``i``, ``rn``/``m``,
``vv``/``w``) applied, so "Аnn" (Cyrillic А) and "ANN" collide with "Ann".
Before that table, every character is mapped to its prototype in the Unicode
confusables data (UTS #39, ``confusables.txt``, as the confusable-homoglyphs
package ships it: :data:`CONFUSABLES`), so look-alikes from other scripts
(Cherokee, Armenian, Coptic, mathematical letters …) fold too.  Registered
accounts are unique by skeleton (:mod:`server.players.accounts`).

Chat lines (:func:`clean_chat`) keep any visible text; format characters
(bidi controls, zero-width characters, BOM, tags) and blank fillers are
removed rather than refused (emoji joined by U+200D show as their parts),
while C0/C1 controls and line/paragraph separators are refused.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from confusable_homoglyphs import utils as confusable_data  # type: ignore[import-untyped]

NAME_MAX = 24
"""Longest display name, in characters (after normalisation)."""
MARKS_MAX = 2
"""Most combining marks allowed on one character of a name."""

BLANK = frozenset(
    chr(c)
    for c in (
        0x115F,  # HANGUL CHOSEONG FILLER
        0x1160,  # HANGUL JUNGSEONG FILLER
        0x3164,  # HANGUL FILLER
        0xFFA0,  # HALFWIDTH HANGUL FILLER
        0x2800,  # BRAILLE PATTERN BLANK
        0x17B4,  # KHMER VOWEL INHERENT AQ
        0x17B5,  # KHMER VOWEL INHERENT AA
        0x034F,  # COMBINING GRAPHEME JOINER
        0x1D159,  # MUSICAL SYMBOL NULL NOTEHEAD
    )
)
"""Characters that are not format characters but still render as nothing."""

_LOOKALIKE_NAMES: tuple[tuple[str, str], ...] = (
    # Cyrillic (small forms: names are casefolded first, so capitals arrive small)
    ("CYRILLIC SMALL LETTER A", "a"),
    ("CYRILLIC SMALL LETTER VE", "b"),
    ("CYRILLIC SMALL LETTER ES", "c"),
    ("CYRILLIC SMALL LETTER KOMI DE", "d"),
    ("CYRILLIC SMALL LETTER IE", "e"),
    ("CYRILLIC SMALL LETTER IO", "e"),
    ("CYRILLIC SMALL LETTER EN", "h"),
    ("CYRILLIC SMALL LETTER SHHA", "h"),
    ("CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I", "i"),
    ("CYRILLIC SMALL LETTER YI", "i"),
    ("CYRILLIC SMALL LETTER JE", "j"),
    ("CYRILLIC SMALL LETTER KA", "k"),
    ("CYRILLIC SMALL LETTER PALOCHKA", "l"),
    ("CYRILLIC LETTER PALOCHKA", "l"),
    ("CYRILLIC SMALL LETTER EM", "m"),
    ("CYRILLIC SMALL LETTER O", "o"),
    ("CYRILLIC SMALL LETTER ER", "p"),
    ("CYRILLIC SMALL LETTER QA", "q"),
    ("CYRILLIC SMALL LETTER DZE", "s"),
    ("CYRILLIC SMALL LETTER TE", "t"),
    ("CYRILLIC SMALL LETTER U", "y"),
    ("CYRILLIC SMALL LETTER STRAIGHT U", "y"),
    ("CYRILLIC SMALL LETTER WE", "w"),
    ("CYRILLIC SMALL LETTER HA", "x"),
    ("CYRILLIC SMALL LETTER ZE", "3"),
    # Greek
    ("GREEK SMALL LETTER ALPHA", "a"),
    ("GREEK SMALL LETTER BETA", "b"),
    ("GREEK SMALL LETTER EPSILON", "e"),
    ("GREEK SMALL LETTER ZETA", "z"),
    ("GREEK SMALL LETTER ETA", "h"),
    ("GREEK SMALL LETTER IOTA", "i"),
    ("GREEK SMALL LETTER KAPPA", "k"),
    ("GREEK SMALL LETTER MU", "m"),
    ("GREEK SMALL LETTER NU", "v"),
    ("GREEK SMALL LETTER OMICRON", "o"),
    ("GREEK SMALL LETTER RHO", "p"),
    ("GREEK SMALL LETTER TAU", "t"),
    ("GREEK SMALL LETTER UPSILON", "y"),
    ("GREEK SMALL LETTER CHI", "x"),
    ("GREEK SMALL LETTER GAMMA", "y"),
    ("GREEK SMALL LETTER OMEGA", "w"),
    ("GREEK SMALL LETTER FINAL SIGMA", "c"),
    ("GREEK LUNATE SIGMA SYMBOL", "c"),
    # Latin letters that look like other Latin letters
    ("LATIN SMALL LETTER DOTLESS I", "i"),
    ("LATIN SMALL LETTER DOTLESS J", "j"),
    ("LATIN LETTER SMALL CAPITAL A", "a"),
    ("LATIN LETTER SMALL CAPITAL B", "b"),
    ("LATIN LETTER SMALL CAPITAL C", "c"),
    ("LATIN LETTER SMALL CAPITAL E", "e"),
    ("LATIN LETTER SMALL CAPITAL H", "h"),
    ("LATIN LETTER SMALL CAPITAL I", "i"),
    ("LATIN LETTER SMALL CAPITAL M", "m"),
    ("LATIN LETTER SMALL CAPITAL N", "n"),
    ("LATIN LETTER SMALL CAPITAL O", "o"),
    ("LATIN LETTER SMALL CAPITAL R", "r"),
    ("LATIN LETTER SMALL CAPITAL T", "t"),
    ("LATIN SMALL LETTER ALPHA", "a"),
    ("LATIN SMALL LETTER SCRIPT G", "g"),
)
"""Look-alike letters by their Unicode names, and the Latin letter they pass for."""

LOOKALIKES: dict[str, str] = {unicodedata.lookup(n): latin for n, latin in _LOOKALIKE_NAMES}
"""Character → the plain letter it looks like (see the module docstring for its limits)."""

_SHAPES: dict[str, str] = {"0": "o", "1": "l", "i": "l", "|": "l", "rn": "m", "vv": "w"}
"""Shapes that stand for another in common fonts; applied after :data:`LOOKALIKES`."""
_SHAPES_RE = re.compile("|".join(re.escape(k) for k in sorted(_SHAPES, key=len, reverse=True)))

RESERVED_WORDS = frozenset(
    {
        "server",
        "system",
        "admin",
        "administrator",
        "moderator",
        "mod",
        "operator",
        "root",
        "cardavia",
        "ai",
        "computer",
        "nobody",
        "anonymous",
    }
)
"""Names (compared letters and digits only, look-alikes folded) nobody may take."""
_RESERVED_PATTERNS = (
    re.compile(r"ai\d*(random|easy|greedy|normal|hard)?"),  # how clients show AI seats
    re.compile(r"player\d+"),  # how clients show a seat without a name
    re.compile(r"emptyseat\d*"),
)
"""Reserved shapes: "AI", "AI 2", "AI (hard)", "AI 1 (hard)", "player 3", "(empty seat 1)"."""


class NameError_(ValueError):
    """A display name that is refused; the message says why."""


_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")
"""The data wraps right-to-left prototypes in these marks (for display only)."""


@cache
def confusables() -> dict[str, str]:
    """Character → its UTS #39 prototype (one or more characters), from the data file.

    The file lists each source with its prototype and each prototype with its
    sources; a character listing one look-alike is a source.  Where two list
    only each other, both map to the smaller, so either way they fold alike.
    ASCII characters keep their own shape here (the data maps ``m`` to ``rn``,
    ``I`` to ``l``): :data:`_SHAPES` folds those in :func:`skeleton` alone, so
    that :func:`is_reserved` still sees the letters typed.
    """
    data: dict[str, list[dict[str, str]]] = confusable_data.load("confusables.json")
    out: dict[str, str] = {}
    for char, entries in data.items():
        if len(char) != 1 or char.isascii() or len(entries) != 1:
            continue
        target = entries[0]["c"].translate(_DIRECTION_MARKS)
        back = data.get(target, [])
        if len(back) == 1 and back[0]["c"].translate(_DIRECTION_MARKS) == char:
            target = min(char, target)
        if target and target != char:
            out[char] = target
    return out


def _fold(text: str) -> str:
    """Casefold, NFKC, accents dropped, confusables mapped to their prototypes
    (:func:`confusables`), script look-alikes mapped to Latin."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    bare = "".join(
        ch for ch in unicodedata.normalize("NFD", folded) if not unicodedata.combining(ch)
    )
    table = confusables()
    prototypes = "".join(table.get(ch, ch) for ch in bare).casefold()
    return "".join(LOOKALIKES.get(ch, ch) for ch in prototypes)


def skeleton(name: str) -> str:
    """What ``name`` looks like: two names with the same skeleton are confusable."""
    folded = _fold(name)
    return _SHAPES_RE.sub(lambda m: _SHAPES[m.group(0)], folded)


def is_reserved(name: str) -> bool:
    """Whether ``name`` looks like a reserved word or how the server/clients label seats."""
    compact = "".join(ch for ch in _fold(name) if ch.isalnum())
    if compact in RESERVED_WORDS:
        return True
    return any(p.fullmatch(compact) for p in _RESERVED_PATTERNS)


def _invisible(ch: str) -> bool:
    """Control, format, private, unassigned, surrogate, line/paragraph separator."""
    cat = unicodedata.category(ch)
    return cat[0] == "C" or cat in ("Zl", "Zp")


def _variation_selector(ch: str) -> bool:
    code = ord(ch)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or 0x180B <= code <= 0x180D


def validate_name(raw: str) -> str:
    """The display name ``raw`` normalised (see the module docstring); raise :class:`NameError_`."""
    name = re.sub(" +", " ", unicodedata.normalize("NFKC", raw)).strip(" ")
    for ch in name:
        if _invisible(ch):
            raise NameError_(f"the name holds an invisible or control character (U+{ord(ch):04X})")
        if ch in BLANK or _variation_selector(ch):
            raise NameError_(f"the name holds a character that renders blank (U+{ord(ch):04X})")
        if ch.isspace() and ch != " ":
            raise NameError_(f"the name holds an unusual space (U+{ord(ch):04X})")
    if not name:
        raise NameError_("the name is empty")
    if len(name) > NAME_MAX:
        raise NameError_(f"the name is longer than {NAME_MAX} characters")
    marks = 0
    for ch in name:
        marks = marks + 1 if unicodedata.combining(ch) else 0
        if marks > MARKS_MAX:
            raise NameError_(f"the name stacks more than {MARKS_MAX} marks on one letter")
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):
        raise NameError_("the name has nothing visible in it")
    if is_reserved(name):
        raise NameError_(f"the name {name!r} is reserved")
    return name


def clean_chat(text: str) -> str:
    """A chat line with invisible characters removed and outer spaces stripped.

    Raise :class:`ValueError` for C0/C1 controls and line or paragraph
    separators (they would break a client's layout); the result may be empty.
    """
    for ch in text:
        code = ord(ch)
        if code < 32 or 0x7F <= code < 0xA0 or unicodedata.category(ch) in ("Zl", "Zp"):
            raise ValueError(f"control character U+{code:04X}")
    kept = "".join(ch for ch in text if unicodedata.category(ch) != "Cf" and ch not in BLANK)
    return kept.strip()
