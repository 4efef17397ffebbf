"""Ratings in the terminal (issue 55), without a server: how a rating, its change and
its history look, the tables of ``cardavia profile`` and ``cardavia leaderboard`` in
English and in Chinese (wide names line up), ``cardavia play --rated``'s table and its
refusals, and the lobby's rated tables."""

from __future__ import annotations

import argparse
import re
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from client_cli.common import CliError
from client_cli.lang import LANGUAGES, language
from client_cli.lobby import table_lines
from client_cli.main import build_parser, main
from client_cli.play import check_rated, table_options
from client_cli.rating_view import (
    SPARK_POINTS,
    SPARKS,
    cell_width,
    change_text,
    leaderboard_lines,
    profile_rating_lines,
    rating_text,
    sparkline,
    text_table,
)
from client_cli.records import profile_lines
from protocol import server_messages as sm
from protocol.models import SeatInfo, TableInfo

DAY = 1_796_601_600.0  # 2026-12-07 00:00 UTC


def rating(game: str, points: list[int], *, provisional: bool = False) -> sm.ProfileRating:
    history = tuple(
        sm.RatingPoint(at=DAY + i * 3600, rating=p, deviation=90) for i, p in enumerate(points)
    )
    change = points[-1] - points[-2] if len(points) > 1 else points[-1] - 1500
    return sm.ProfileRating(
        game=game,
        rating=points[-1],
        deviation=94,
        provisional=provisional,
        games=len(points),
        change=change,
        history=history,
    )


def entry(rank: int, name: str, *, bot: bool = False) -> sm.LeaderboardEntry:
    return sm.LeaderboardEntry(
        rank=rank, name=name, bot=bot, rating=1800 - rank, deviation=80, games=30 + rank,
        last_played=DAY,
    )  # fmt: skip


# -- a rating, a change, a history ------------------------------------------------------------
def test_a_rating_shows_its_deviation_or_a_question_mark_while_provisional() -> None:
    assert rating_text(1612, 94, False) == "1612 ± 94"
    assert rating_text(1500, 277, True) == "1500?"
    assert [change_text(c) for c in (12, -8, 0)] == ["+12", "-8", "±0"]


@given(st.lists(st.integers(0, 4000), max_size=60), st.integers(1, 40))
def test_a_sparkline_keeps_the_order_of_the_last_points(values: list[int], width: int) -> None:
    line = sparkline(values, width)
    shown = values[-width:]
    assert len(line) == len(shown) and set(line) <= set(SPARKS)
    heights = [SPARKS.index(c) for c in line]
    for (a, ha), (b, hb) in pairwise(zip(shown, heights, strict=True)):
        assert (a < b) <= (ha <= hb) and (a > b) <= (ha >= hb)  # never drawn the wrong way
    if shown and min(shown) < max(shown):  # the lowest at the bottom, the highest at the top
        assert heights[shown.index(min(shown))] == 0
        assert heights[shown.index(max(shown))] == len(SPARKS) - 1


def test_a_flat_history_is_drawn_at_half_height() -> None:
    assert sparkline([1500, 1500, 1500]) == "▄▄▄"
    assert sparkline([]) == ""
    assert len(sparkline(list(range(100)))) == SPARK_POINTS


def test_wide_characters_take_two_columns_and_columns_line_up() -> None:
    assert cell_width("Ann") == 3 and cell_width("小明") == 4 and cell_width("（你）") == 6
    assert cell_width("e\u0301") == 1  # a combining accent takes none
    lines = text_table([["名字", "x"], ["小明（机器人）", "y"], ["Bo", "z"]])
    assert {cell_width(line) - 1 for line in lines} == {cell_width("小明（机器人）") + 2}
    right = text_table([["1", "a"], ["100", "b"]], right={0})
    assert right == ["  1  a", "100  b"]


# -- cardavia profile ----------------------------------------------------------------------------
def test_profile_ratings_per_game_with_change_and_sparkline() -> None:
    ratings = (
        rating("scopa", [1500, 1530, 1512, 1560]),
        rating("doudizhu", [1492], provisional=True),
    )
    lines = profile_rating_lines(ratings, language("en"))
    assert lines[0] == "Ratings:"
    assert lines[1].split() == ["GAME", "RATING", "GAMES", "LAST", "HISTORY"]
    scopa = next(line for line in lines if "scopa" in line)
    assert "1560 ± 94" in scopa and " 4 " in scopa and "+48" in scopa
    assert scopa.endswith(sparkline([1500, 1530, 1512, 1560])) and scopa.endswith("▁▅▂█")
    doudizhu = next(line for line in lines if "doudizhu" in line)
    assert "1492?" in doudizhu and "-8" in doudizhu and "±" not in doudizhu
    assert lines[-1].startswith("  ? provisional")
    assert lines[1].index("RATING") == scopa.index("1560")  # the columns line up
    # no legend when nothing is provisional; a line when nothing is rated
    assert not any("?" in line for line in profile_rating_lines(ratings[:1], language("en")))
    assert profile_rating_lines((), language("en")) == ["Ratings:", "  no rated games yet"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_profile_speaks_every_language(lang: str) -> None:
    profile = sm.Profile(
        name="Ann",
        member_since=DAY,
        games=(sm.ProfileGame(game="scopa", played=5, won=3),),
        ratings=(rating("scopa", [1500, 1510]),),
    )
    lines = profile_lines(profile, language(lang))
    assert "Ann" in lines[0] and "2026-12-07" in lines[0]
    assert "5" in lines[1] and "3" in lines[1]
    assert lines[2] == language(lang).t("ratings.heading")
    assert "1510 ± 94" in lines[4] and "+10" in lines[4]
    if lang == "en":  # English says what it always said
        assert lines[:2] == ["Ann, member since 2026-12-07", "  scopa: 5 played, 3 won"]
    bot = profile_lines(profile.model_copy(update={"bot": True, "ratings": ()}), language(lang))
    assert bot[0].startswith(language(lang).t("seat.bot", name="Ann"))


# -- cardavia leaderboard ------------------------------------------------------------------------
def board(
    *entries: sm.LeaderboardEntry, page: int = 1, pages: int = 1, bots: bool = False
) -> sm.Leaderboard:
    return sm.Leaderboard(game="scopa", bots=bots, page=page, pages=pages, entries=entries)


def test_a_leaderboard_page_marks_bots_and_the_reader() -> None:
    lines = leaderboard_lines(
        board(entry(1, "Ann"), entry(2, "Robo", bot=True), entry(10, "Bo"), pages=3),
        "Scopa",
        language("en"),
        me="ann",
    )
    assert lines[0] == "Scopa leaderboard: people, page 1 of 3"
    assert lines[1].split() == ["RANK", "NAME", "RATING", "GAMES", "LAST", "PLAYED"]
    assert re.fullmatch(r" +1  Ann \(you\) +1799 ± 80 +31  2026-12-07", lines[2])
    assert "Robo (bot)" in lines[3] and "(you)" not in lines[3]
    assert lines[4].startswith("  10  Bo ")
    bots = leaderboard_lines(
        board(entry(1, "AI hard", bot=True), bots=True), "Scopa", language("en")
    )
    assert "bots and AI levels" in bots[0] and "AI hard (bot)" in bots[2]


def test_an_empty_leaderboard_and_a_page_past_the_end_say_so() -> None:
    empty = leaderboard_lines(board(pages=0), "Scopa", language("en"))
    assert empty[0] == "Scopa leaderboard: people, page 1 of 1"
    assert empty[1].startswith("Nobody is listed yet")
    past = leaderboard_lines(board(page=7, pages=2), "Scopa", language("de"))
    assert past[1] == "Es gibt keine Seite 7: die Rangliste hat 2."


def test_chinese_names_line_up_in_the_leaderboard() -> None:
    lines = leaderboard_lines(
        board(entry(1, "小明", bot=True), entry(2, "Ann")), "Scopa", language("zh"), me="Ann"
    )
    assert "小明（机器人）" in lines[2] and "Ann（你）" in lines[3]
    starts = {cell_width(line[: line.index("17")]) for line in lines[2:]}
    assert len(starts) == 1  # the ratings start in the same column


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["leaderboard", "scopa", "--url", "ws://x", "--page", "0"], "out of range"),
        (["leaderboard", "scopa"], "--url"),
        (["leaderboard", "scopa", "--url", "ws://x", "--lang", "xx"], "unknown language 'xx'"),
    ],
)
def test_leaderboard_usage_errors_are_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main(argv)
    except SystemExit as exc:
        status = int(exc.code or 0)
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# -- cardavia play --rated, the lobby -------------------------------------------------------------
def play_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["play", "scopa", *argv])


def test_a_rated_table_asks_for_rated_without_hints() -> None:
    args = play_args("--url", "ws://x", "--rated", "--level", "normal", "-o", "pattern=napoletane")
    check_rated(args)
    options = table_options(args, 2)
    assert options.rated and not options.hints
    assert options.game == {"pattern": "napoletane"} and options.ai[0].level == "normal"
    plain = table_options(play_args("--url", "ws://x"), 2)
    assert not plain.rated and plain.hints


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rated"], "--rated needs --url"),
        (["--url", "ws://x", "--rated", "--table", "T1"], "give --table alone"),
        (["--url", "ws://x", "--rated", "--partner", "Bo"], "does not go with --partner"),
        (["--url", "ws://x", "--quick", "--rated", "--level", "easy"], "does not take --level"),
        (["--url", "ws://x", "--quick", "--with-bots"], "give --quick --rated"),
    ],
)
def test_rated_play_refuses_what_cannot_be_rated(argv: list[str], message: str) -> None:
    with pytest.raises(CliError, match=re.escape(message)) as caught:
        check_rated(play_args(*argv))
    assert caught.value.status == 2


def test_the_lobby_marks_rated_tables() -> None:
    seats = (SeatInfo(seat=0, kind="human", name="Ann"), SeatInfo(seat=1, kind="ai", level="hard"))
    info = TableInfo(
        id="T1", game="scopa", title="Scopa", status="waiting", seats=seats, spectators=0,
        private=False, quick=False, owner=None, game_no=0, version=1, turn_timer=None,
        ai_delay=0.0, options={}, rated=True,
    )  # fmt: skip
    row = table_lines((info, info.model_copy(update={"id": "T2", "rated": False})))
    assert "waiting rated" in row[1] and "rated" not in row[2]
