"""The page's strings table: every key the code asks for exists (English for now)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import client_web
from engine.cards import PATTERNS

ROOT = Path(client_web.__file__).parent
_CALL = re.compile(r"""\bt\(\s*"([a-z_.]+)"\s*[,)]""")


def _has(table: dict[str, object], key: str) -> bool:
    node: object = table
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return isinstance(node, str)


def test_every_string_the_page_uses_is_in_the_english_table() -> None:
    table = json.loads((ROOT / "i18n" / "en.json").read_text(encoding="utf-8"))
    used = set()
    for name in ("app.js", "cards.js"):
        used |= set(_CALL.findall((ROOT / name).read_text(encoding="utf-8")))
    assert len(used) > 30
    missing = sorted(k for k in used if not _has(table, k))
    assert missing == []


def test_every_card_of_every_pattern_has_a_name() -> None:
    table = json.loads((ROOT / "i18n" / "en.json").read_text(encoding="utf-8"))
    for pattern in PATTERNS.values():
        fam = pattern.family.name  # as cards.js's family(): french, bresciane, german
        ranks = table["rank_names"].get(pattern.id) or table["rank_names"][fam]
        suits = table["suit_names"].get(pattern.id) or table["suit_names"][fam]
        for card in pattern.family.cards():
            if card.suit == "J":  # the jokers
                assert card.rank in table["jokers"]
                continue
            assert card.rank in ranks, (pattern.id, str(card))
            assert card.suit in suits, (pattern.id, str(card))


def test_the_page_draws_exactly_the_engine_s_patterns() -> None:
    source = (ROOT / "cards.js").read_text(encoding="utf-8")
    block = source.split("export const PATTERN_SUITS = {", 1)[1].split("};", 1)[0]
    drawn = set(re.findall(r"^\s*([a-z_]+):", block, re.MULTILINE))
    assert drawn == set(PATTERNS)
    table = json.loads((ROOT / "i18n" / "en.json").read_text(encoding="utf-8"))
    assert set(table["patterns"]) == set(PATTERNS)
