"""Card and suit names as the page's shared language data builds them (client_web/i18n),
read here on their own so the terminal's tests check it against the data, not itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import client_web
from engine.cards import PATTERNS

SHARED = Path(client_web.__file__).resolve().parent / "i18n"


def _over(base: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in own.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = _over(out[key], value) if both else value
    return out


def shared(lang: str) -> dict[str, Any]:
    """The shared data of ``lang`` (what it lacks taken from English)."""
    english = json.loads((SHARED / "en.json").read_text(encoding="utf-8"))
    path = SHARED / f"{lang}.json"
    own = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return _over(english, own)


def _section(data: dict[str, Any], section: str, pattern: str) -> dict[str, str]:
    table = data[section]
    found = table.get(pattern) or table[PATTERNS[pattern].family.name]
    return dict(found)


def suit_names(lang: str, pattern: str) -> list[str]:
    """Every suit's name in ``pattern``."""
    return list(_section(shared(lang), "suit_names", pattern).values())


def card_name(lang: str, pattern: str, code: str) -> str:
    """``code`` named as the page names it (``card_format`` of ``rank_names``/``suit_names``)."""
    data = shared(lang)
    if code[1] == "J":
        return str(data["jokers"][code[0]])
    fmt = str(data["card_format"])
    rank = _section(data, "rank_names", pattern)[code[0]]
    suit = _section(data, "suit_names", pattern)[code[1]]
    return fmt.replace("{rank}", rank).replace("{suit}", suit)


def suit_pattern(lang: str, pattern: str) -> str:
    """A regular expression group matching any suit name of ``pattern``."""
    return "(" + "|".join(suit_names(lang, pattern)) + ")"
