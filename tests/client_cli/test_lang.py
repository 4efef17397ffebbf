"""The terminal's languages: complete string tables, the language choice, and a table
shown in Italian and in German with the page's own card names and terms."""

from __future__ import annotations

import argparse
import io
import json
import re
import string
from pathlib import Path
from typing import Any, get_args

import pytest

import client_cli
from client_cli.lang import (
    LANGUAGES,
    UI_DIR,
    Language,
    UnknownLanguage,
    choose,
    language,
    run_with_lang,
)
from client_cli.main import build_parser
from client_cli.moves import Ask, Pick, choose_move
from client_cli.play_session import PlaySession
from client_cli.render import Seats, renderer_for
from client_cli.terminal import Screen
from engine.cards import PATTERNS
from engine.doudizhu.combos import COMBOS
from protocol import server_messages as sm
from protocol.models import SeatInfo, TableInfo, TableStatus
from tests.client_cli.names import card_name, shared

SOURCES = Path(client_cli.__file__).resolve().parent
_KEY = re.compile(
    r"""["']((?:seat|view|turn|action|event|move|result|hint|session|scopa|cicera|schafkopf"""
    r"""|doudizhu|watch|replay|profile|ratings|leaderboard|queue)\.[a-z_]+)["']"""
)
_TERM = re.compile(r"""\bterm\(\s*["']([a-z_]+)["']""")


def _flat(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[prefix + key] = value
    return out


def _ui(lang: str) -> dict[str, Any]:
    return dict(json.loads((UI_DIR / f"{lang}.json").read_text(encoding="utf-8")))


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


# -- the string tables ---------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_in_every_language_with_the_same_placeholders(lang: str) -> None:
    english = {k: v for k, v in _flat(_ui("en")).items() if not k.startswith("words.")}
    own = {k: v for k, v in _flat(_ui(lang)).items() if not k.startswith("words.")}
    assert sorted(set(english) - set(own)) == []
    assert sorted(set(own) - set(english)) == []
    for key, text in english.items():
        assert isinstance(own[key], str) and own[key].strip(), (lang, key)
        assert _fields(own[key]) == _fields(text), (lang, key)
    for word, meaning in _ui(lang)["words"].items():
        assert word == word.lower() and not re.fullmatch(r"\w\w", word, re.ASCII), (lang, word)
        assert meaning in {"pass", "bid", "play", "eichel", "gras", "herz", "schellen",
                           "solo", "rufer", "wenz", "sie", "tout"}, (lang, word)  # fmt: skip


def test_every_string_the_code_uses_is_in_english() -> None:
    english = _flat(_ui("en"))
    used: set[str] = set()
    for path in SOURCES.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        used |= {k for k in _KEY.findall(text) if not k.endswith(".md")}  # not rules/scopa.md
        said = re.findall(r"""said\(\s*["']([a-z_.]+)["']""", text)
        used |= {f"{k}.{form}" for k in said for form in ("you", "other")}
        used -= set(said)
    used |= {f"watch.status.{status}" for status in get_args(TableStatus)}  # f"watch.status.{…}"
    assert len(used) > 120
    assert sorted(k for k in used if k not in english) == []


@pytest.mark.parametrize("game", ["scopa", "cicera", "schafkopf", "doudizhu"])
def test_every_term_a_renderer_names_is_in_english(game: str) -> None:
    """Literal terms, and each kind the engine sends (contracts, combos, bonuses, awards)."""
    source = (SOURCES / "render" / f"{game}.py").read_text(encoding="utf-8")
    used = set(_TERM.findall(source))
    used |= {
        "scopa": {"cards", "diamonds", "primiera", "settebello", "scope"},
        "cicera": {"scua", "picada", "simili", "quadriglia", "napula", "cards", "swords",
                   "bonuses", "awards", "points", "mata", "ten_of_coins", "fante_of_cups"},
        "schafkopf": {"rufer", "wenz", "solo", "wenz_tout", "solo_tout", "sie", "schneider",
                      "schwarz"},
        "doudizhu": {"landlord", "farmer", "spring", "reverse_spring", "bomb", "rocket",
                     "single", "pair", "straight", "pair_sequence", "airplane"},
    }[game]  # fmt: skip
    if game == "doudizhu":
        used |= set(COMBOS)  # every combination the engine names
    terms = {**_ui("en")["terms"].get(game, {}), **shared("en").get("terms", {}).get(game, {})}
    assert sorted(used - set(terms)) == []
    for lang in LANGUAGES:
        own = language(lang)
        assert all(own.term(game, key) for key in used)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_of_every_pattern_has_a_name(lang: str) -> None:
    own = language(lang)
    for pattern in PATTERNS.values():
        for card in pattern.family.cards():
            name = own.card_name(card.text, pattern.id)
            assert name == card_name(lang, pattern.id, card.text)
            assert card.text not in name.split(), (lang, pattern.id, card.text)


# -- choosing the language --------------------------------------------------------------------
def test_the_flag_then_cardavia_lang_then_the_locale_then_english() -> None:
    env = {"CARDAVIA_LANG": "de", "LC_ALL": "", "LC_MESSAGES": "hu_HU.UTF-8", "LANG": "tr_TR"}
    assert choose("it", env) == "it"
    assert choose("IT-it", env) == "it"
    assert choose(None, env) == "de"
    assert choose(None, {**env, "CARDAVIA_LANG": ""}) == "hu"
    assert choose(None, {"LANG": "it_IT.UTF-8"}) == "it"
    assert choose(None, {"LC_ALL": "zh_CN.UTF-8", "LANG": "it_IT.UTF-8"}) == "zh"
    assert choose(None, {"LC_ALL": "C", "LANG": "it_IT.UTF-8"}) == "en"  # C: plain English
    assert choose(None, {"LANG": "fr_FR.UTF-8"}) == "en"  # a language we do not speak
    assert choose(None, {}) == "en"


def test_an_unknown_language_is_a_usage_error_listing_the_languages() -> None:
    with pytest.raises(UnknownLanguage, match=r"--lang: unknown language 'xx'; choose one of "
                       r"en, it, de, hu, tr, zh"):  # fmt: skip
        choose("xx", {})
    with pytest.raises(UnknownLanguage, match="CARDAVIA_LANG: unknown language 'klingon'"):
        choose(None, {"CARDAVIA_LANG": "klingon"})
    assert UnknownLanguage("xx").status == 2


def test_a_command_runs_in_the_language_it_picks_or_not_at_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran: list[str] = []

    async def command(args: argparse.Namespace, lang: Language) -> int:
        ran.append(lang.code)
        return 0

    entry = run_with_lang(command)
    assert entry(argparse.Namespace(lang="it")) == 0
    assert ran == ["it"]
    assert entry(argparse.Namespace(lang="xx")) == 2  # refused before the command starts
    assert ran == ["it"]
    assert "cardavia: --lang: unknown language 'xx'" in capsys.readouterr().err


def test_a_missing_string_falls_back_to_english() -> None:
    italian = language("it")
    ui = dict(italian.ui)
    ui["turn"] = {}  # as if Italian lacked these strings
    lacking = type(italian)("it", italian.shared, {**ui, "turn": {}})
    assert lacking.term("scopa", "no_such_term", "fallback") == "fallback"
    with pytest.raises(KeyError):
        lacking.t("turn.yours")  # no English base merged: a missing key is a bug, not silence
    assert language("it").t("turn.yours") != language("en").t("turn.yours")
    assert language("en").error("illegal_action", "you must follow suit") == "you must follow suit"
    assert language("it").level("random") == shared("it")["levels"]["random"] != "random"
    assert language("it").level("a_new_policy") == "a_new_policy"


# -- a table in Italian and in German ----------------------------------------------------------
def test_an_italian_scopa_view_names_cards_in_italian() -> None:
    render = renderer_for("scopa", Seats(me=0, names={1: "Ann"}, lang=language("it")))
    view = {
        "options": {"pattern": "napoletane", "target": 11},
        "seat": 0,
        "to_act": [0],
        "deal_no": 0,
        "dealer": 1,
        "stock_count": 30,
        "table": ["AH", "7D"],
        "hand": ["KS", "3C"],
        "hand_counts": [2, 3],
        "piles": [[], []],
        "scope": [0, 1],
        "totals": [0, 0],
    }
    lines = render.view_lines(view)
    asso, sette = card_name("it", "napoletane", "AH"), card_name("it", "napoletane", "7D")
    assert asso != card_name("en", "napoletane", "AH")  # Italian, not the English fallback
    assert asso.startswith("Asso ") and " di " in asso
    assert lines[0] == "Tocca a te."
    assert f"In tavola: {asso} (AH), {sette} (7D)" in lines
    spade, bastoni = (shared("it")["suit_names"]["napoletane"][s] for s in "SC")
    assert f"La tua mano (2): {spade} KS  {bastoni} 3C" in lines
    assert "  Ann: 3 in mano, 0 prese, 1 scopa" in lines
    move = render.move_labels([{"type": "play", "card": "7D", "capture": ["AH"]}])
    assert move == ["1) Gioca " + f"{sette} (7D), prendi {asso} (AH)"]
    event = {"kind": "play", "data": {"seat": 1, "card": "7D", "captured": [], "scopa": False}}
    assert render.event(event) == [f"Ann gioca {sette} (7D)"]


def test_a_german_schafkopf_uses_german_card_names_and_terms() -> None:
    render = renderer_for("schafkopf", Seats(me=0, names={1: "Sepp"}, lang=language("de")))
    view = {
        "options": {"pattern": "bavarian"},
        "seat": 0,
        "to_act": [0],
        "phase": "play",
        "deal_no": 0,
        "dealer": 3,
        "contract": {"kind": "solo", "suit": "H", "declarer": 0},
        "leader": 1,
        "trick": ["AE"],
        "tricks": [],
        "points": [0, 0, 0, 0],
        "hand": ["OE", "KH", "TG"],
        "totals": [0, 0, 0, 0],
    }
    lines = render.view_lines(view)
    sau = card_name("de", "bavarian", "AE")
    assert sau != card_name("en", "bavarian", "AE")
    herz = shared("de")["suit_names"]["german"]["H"]
    assert lines[0] == "Du bist dran."
    assert f"Spiel: {herz}-Solo, Spieler: du" in lines
    assert f"Stich 1: Sepp {sau} (AE) (Ausspiel: Sepp)" in lines
    assert any(line.startswith("Deine Karten (3): Trümpfe OE KH") for line in lines)
    announce = {"type": "announce", "contract": "rufer", "suit": "G"}
    gras = shared("de")["suit_names"]["german"]["G"]
    assert render.action(announce) == f"Spiel ansagen: Sauspiel auf die {gras}-Sau"
    assert render.event({"kind": "bid", "data": {"seat": 1, "contract": None}}) == [
        "Sepp sagt weiter"
    ]
    assert render.event({"kind": "play", "data": {"seat": 0, "card": "AE"}}) == [
        f"Du spielst {sau} (AE)"
    ]


def test_errors_are_said_by_code_in_the_language() -> None:
    for lang in LANGUAGES:
        said = language(lang).error("not_your_turn", "It is not your turn (server).")
        expected = shared(lang).get("errors", {}).get("not_your_turn")
        if lang == "en" or expected is None:
            assert said == "It is not your turn (server)."
        else:
            assert said == expected


# -- words typed in the language ------------------------------------------------------------
def test_the_language_s_own_words_pick_moves() -> None:
    legal = [{"type": "pass"}, {"type": "bid", "value": 2}, {"type": "bid", "value": 3}]
    for lang, words in (("it", "passo"), ("hu", "passz"), ("tr", "pas"), ("zh", "不要")):
        render = renderer_for("doudizhu", Seats(me=0, lang=language(lang)), "french")
        assert choose_move(words, legal, render) == Pick(0)
        assert choose_move("pass", legal, render) == Pick(0)  # English words still work
    render = renderer_for("doudizhu", Seats(me=0, lang=language("it")), "french")
    assert choose_move("offro 3", legal, render) == Pick(2)
    solos = [{"type": "announce", "contract": "solo", "suit": s} for s in "EGHS"]
    render = renderer_for("schafkopf", Seats(me=0, lang=language("hu")), "bavarian")
    assert choose_move("makk szóló", solos, render) == Pick(0)
    assert choose_move("solo tök", solos, render) == Pick(3)
    assert isinstance(choose_move("szóló", solos, render), Ask)
    assert choose_move("7D", [{"type": "play", "card": "7D"}], render).__class__ is not Pick


def test_play_watch_and_replay_take_lang(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    for argv in (["play", "scopa"], ["watch", "--url", "ws://x", "--table", "t"],
                 ["replay", "t", "--url", "ws://x"]):  # fmt: skip
        assert parser.parse_args([*argv, "--lang", "hu"]).lang == "hu"
        assert parser.parse_args(argv).lang is None  # then CARDAVIA_LANG, the locale
    with pytest.raises(SystemExit):
        parser.parse_args(["play", "--help"])
    assert "--lang LANG" in capsys.readouterr().out


# -- the session in a language ----------------------------------------------------------------
class _Client:
    """What a session asks of its client here: who it is, and a rematch."""

    token, name, player_id, ca_file = "t", "ann", "p0", None

    def __init__(self) -> None:
        self.rematches = 0

    async def rematch(self, table: str) -> None:
        self.rematches += 1


def _session(lang: str, game: str) -> tuple[PlaySession, _Client, io.StringIO]:
    seats = (
        SeatInfo(seat=0, kind="human", name="ann"),
        SeatInfo(seat=1, kind="ai", level="random"),
    )
    info = TableInfo(id="T1", game=game, title=game, status="playing", seats=seats,
                     spectators=0, private=False, quick=False, owner="p0", game_no=1, version=0,
                     turn_timer=None, ai_delay=0.0, options={})  # fmt: skip
    out, client = io.StringIO(), _Client()
    session = PlaySession(
        client,  # type: ignore[arg-type]
        sm.Joined(table=info, seat=0),
        Screen(out),
        embedded=True,
        lang=language(lang),
    )
    return session, client, out


async def test_the_session_speaks_the_language_and_takes_its_words() -> None:
    session, client, out = _session("it", "doudizhu")
    session.intro()
    assert "Giocatori: 0: tu, 1: IA 1 (a caso)" in out.getvalue()
    session.moves = [{"type": "pass"}, {"type": "bid", "value": 2}]
    assert {"passo", "offro"} <= set(session.completions())
    await session.on_line("help")
    assert "gioca la mossa con quel numero" in out.getvalue()
    session.over = True
    await session.on_line("sì")  # yes, in Italian: another game
    assert client.rematches == 1
    hungarian, _, _ = _session("hu", "schafkopf")
    hungarian.moves = [{"type": "announce", "contract": "solo", "suit": "E"}]
    assert {"makk", "szóló", "eichel"} <= set(hungarian.completions())
