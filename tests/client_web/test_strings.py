"""The strings tables (client_web/i18n/*.json): every language has every key English
has and no other, the same placeholders, a name for every card of every pattern, a
message for every error code and the game terms the engines use."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

import client_cli
import client_web
from engine.cards import PATTERNS, Pattern
from engine.cicera.state import TeamBonuses
from engine.doudizhu.combos import COMBOS
from engine.reasons import Why
from engine.registry import GAMES, POLICIES
from engine.schafkopf.rules import CONTRACTS
from protocol.errors import ErrorCode

ROOT = Path(client_web.__file__).parent
LANGUAGES = ("en", "it", "de", "hu", "tr", "zh")
_CALL = re.compile(r"""\b(?:t|lookup)\((?:\s*strings,)?\s*"([a-z_.]+)"\s*[,)]""")
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def _load(lang: str) -> dict[str, Any]:
    raw = (ROOT / "i18n" / f"{lang}.json").read_bytes()
    table = json.loads(raw.decode("utf-8"))  # strict UTF-8: a bad byte fails here
    assert isinstance(table, dict)
    return table


def _flat(table: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Every string of a table by its dotted path; anything but a string or a table of
    them fails."""
    out: dict[str, str] = {}
    for key, value in table.items():
        path = prefix + key
        if isinstance(value, dict):
            out |= _flat(value, path + ".")
        else:
            assert isinstance(value, str) and value.strip(), (path, value)
            out[path] = value
    return out


TABLES = {lang: _load(lang) for lang in LANGUAGES}
FLAT = {lang: _flat(table) for lang, table in TABLES.items()}


def _has(table: dict[str, Any], key: str) -> bool:
    node: object = table
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return isinstance(node, str)


def card_name(table: dict[str, Any], pattern: Pattern, rank: str, suit: str) -> str:
    """A card's name as cards.js's ``cardName`` builds it."""
    if suit == "J" and rank in "BR":
        return str(table["jokers"][rank])
    fam = pattern.family.name
    ranks = table["rank_names"].get(pattern.id) or table["rank_names"][fam]
    suits = table["suit_names"].get(pattern.id) or table["suit_names"][fam]
    fmt = str(table["card_format"])
    return fmt.replace("{rank}", ranks[rank]).replace("{suit}", suits[suit])


def test_there_is_one_file_per_language_and_no_other() -> None:
    files = {p.stem for p in (ROOT / "i18n").glob("*.json")}
    assert files == set(LANGUAGES)
    source = (ROOT / "i18n.js").read_text(encoding="utf-8")
    block = source.split("export const LANGUAGES = {", 1)[1].split("};", 1)[0]
    assert re.findall(r"^\s*([a-z]{2}):", block, re.MULTILINE) == list(LANGUAGES)


def test_every_string_the_page_uses_is_in_the_english_table() -> None:
    used = set()
    for name in ("app.js", "cards.js", "i18n.js"):
        used |= set(_CALL.findall((ROOT / name).read_text(encoding="utf-8")))
    assert len(used) > 30
    missing = sorted(k for k in used if not _has(TABLES["en"], k))
    assert missing == []


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_language_has_exactly_the_english_keys(lang: str) -> None:
    english, other = set(FLAT["en"]), set(FLAT[lang])
    assert sorted(english - other) == [], "missing"
    assert sorted(other - english) == [], "not in en.json"


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_placeholders_are_the_same_in_every_language(lang: str) -> None:
    wrong = {
        key: text
        for key, text in FLAT[lang].items()
        if set(_PLACEHOLDER.findall(text)) != set(_PLACEHOLDER.findall(FLAT["en"][key]))
    }
    assert wrong == {}
    for key, text in FLAT[lang].items():  # no stray braces: a typo like "{name" or "{ n}"
        assert text.count("{") == text.count("}") == len(_PLACEHOLDER.findall(text)), key


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_language_is_translated(lang: str) -> None:
    """Not a copy of English: most sentences differ (names like Scopa may not)."""
    keys = [k for k in FLAT["en"] if k.startswith(("errors.", "your_", "waiting"))]
    same = [k for k in keys if FLAT[lang][k] == FLAT["en"][k]]
    assert same == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_of_every_pattern_has_a_name(lang: str) -> None:
    table = TABLES[lang]
    assert set(_PLACEHOLDER.findall(table["card_format"])) == {"rank", "suit"}
    for pattern in PATTERNS.values():
        names = [card_name(table, pattern, c.rank, c.suit) for c in pattern.family.cards()]
        for name in names:
            assert name.strip() and "{" not in name, (lang, pattern.id, name)
        assert len(set(names)) == len(names), (lang, pattern.id)  # no two cards alike


def test_the_neapolitan_deck_has_no_queen() -> None:
    """Neapolitan cards have Fante, Cavallo and Re: the Q card is the Cavallo."""
    napoli = PATTERNS["napoletane"]
    assert card_name(TABLES["it"], napoli, "Q", "H") == "Cavallo di Coppe"
    assert card_name(TABLES["it"], napoli, "7", "D") == "Sette di Denari"
    assert card_name(TABLES["en"], napoli, "Q", "S") == "Knight of Swords"
    assert card_name(TABLES["de"], PATTERNS["bavarian"], "A", "G") == "Gras-Sau"
    assert card_name(TABLES["hu"], PATTERNS["bavarian"], "O", "E") == "Makk felső"
    assert card_name(TABLES["tr"], PATTERNS["french"], "Q", "S") == "Maça kızı"
    assert card_name(TABLES["zh"], PATTERNS["french"], "T", "H") == "红桃10"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_error_code_has_a_message(lang: str) -> None:
    errors = TABLES[lang]["errors"]
    assert sorted(set(ErrorCode) - set(errors)) == []
    assert sorted(set(errors) - set(ErrorCode)) == []  # no message for a code gone


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_reason_has_a_sentence(lang: str) -> None:
    """Each of the engine's reasons (engine.reasons.Why) has its page sentence and no
    sentence is left for a reason gone; not English standing in."""
    reasons = TABLES[lang]["reasons"]
    assert sorted(set(Why) - set(reasons)) == []
    assert sorted(set(reasons) - set(Why)) == []
    english = TABLES["en"]["reasons"]
    assert lang == "en" or [k for k in reasons if reasons[k] == english[k]] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_reason_names_what_the_terminal_s_sentence_names(lang: str) -> None:
    """The page's sentence names the parameters the terminal's names (client_cli/i18n,
    which the engine's reasons are checked against), except that the page may name a
    suit's ace as its card (``{ace}``, from ``suit``)."""
    terminal = json.loads(
        (Path(client_cli.__file__).parent / "i18n" / f"{lang}.json").read_text(encoding="utf-8")
    )["reasons"]
    for key, text in TABLES[lang]["reasons"].items():
        names = {"suit" if n == "ace" else n for n in _PLACEHOLDER.findall(text)}
        assert names == set(_PLACEHOLDER.findall(terminal[key])), (lang, key)


def test_the_terms_name_what_the_engines_use() -> None:
    terms = TABLES["en"]["terms"]
    assert set(CONTRACTS) <= set(terms["schafkopf"])
    assert {"schneider", "schwarz", "laufende", "tout", "sie"} <= set(terms["schafkopf"])
    assert set(COMBOS) <= set(terms["doudizhu"])
    assert {"landlord", "farmer", "bid", "pass", "spring", "reverse_spring"} <= set(
        terms["doudizhu"]
    )
    bonuses = {f.name for f in dataclasses.fields(TeamBonuses)}
    assert bonuses | {"napula", "mata"} <= set(terms["cicera"])
    assert {"scopa", "settebello", "primiera", "cards", "diamonds"} <= set(terms["scopa"])


def test_every_game_option_has_a_label() -> None:
    names = {f.name for g in GAMES.values() for f in dataclasses.fields(g.options({}))}
    assert {"target", "deals"} <= names
    assert sorted(names - {"pattern"} - set(TABLES["en"]["options"])) == []


def test_every_ai_level_has_a_label() -> None:
    levels = {name for policies in POLICIES.values() for name in policies}
    assert "hard" in levels
    assert sorted(levels - set(TABLES["en"]["levels"])) == []


def _event_kinds_and_phases() -> tuple[set[str], set[str]]:
    """The event kinds and view phases of a few random games of every game."""
    kinds: set[str] = set()
    phases: set[str] = set()
    rng = random.Random(13)
    for game in GAMES.values():
        for seed in range(3):
            state = game.new_state(game.options({}), seed)
            kinds |= {e.kind for e in game.start_events(state)}
            for _ in range(1000):
                if game.is_over(state):
                    break
                seat = game.to_act(state)[0]
                moved = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
                state = moved.state
                kinds |= {e.kind for e in moved.events}
                phases.add(str(getattr(game.view(state, None), "phase", "")))
    return kinds, phases - {""}


def test_every_event_and_phase_the_engines_emit_has_a_text() -> None:
    kinds, phases = _event_kinds_and_phases()
    assert {"play", "trick", "deal_scored", "landlord", "contract"} <= kinds  # all games ran
    assert sorted(kinds - {"hand"} - set(TABLES["en"]["events"])) == []
    assert phases and sorted(phases - set(TABLES["en"]["phases"])) == []


def test_the_page_draws_exactly_the_engine_s_patterns() -> None:
    source = (ROOT / "cards.js").read_text(encoding="utf-8")
    block = source.split("export const PATTERN_SUITS = {", 1)[1].split("};", 1)[0]
    drawn = set(re.findall(r"^\s*([a-z_]+):", block, re.MULTILINE))
    assert drawn == set(PATTERNS)
    assert set(TABLES["en"]["patterns"]) == set(PATTERNS)
    assert set(PATTERNS) <= set(TABLES["en"]["rank_names"])
    assert set(PATTERNS) <= set(TABLES["en"]["suit_names"])
