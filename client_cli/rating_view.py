"""How ratings look in the terminal (issue 55): ``1612 ± 94``, ``1500?`` while
provisional, a change with its sign, a sparkline of the history, and the tables of
``cardavia profile`` and ``cardavia leaderboard``.

A rating is shown as the server states it (``ProfileRating``, ``LeaderboardEntry``):
the client never recomputes one.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Sequence
from datetime import UTC, datetime

from client_cli.lang import Language
from protocol import server_messages as sm

SPARKS = "▁▂▃▄▅▆▇█"
"""The sparkline's eight heights, lowest first."""
SPARK_POINTS = 24
"""The most recent rating points a sparkline shows (one character each)."""


def day(seconds: float) -> str:
    """A time as its UTC day (``2026-12-07``): when a listed player last played."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d")


# -- how a rating looks ------------------------------------------------------------------
def rating_text(rating: int, deviation: int, provisional: bool) -> str:
    """``1612 ± 94``, or ``1500?`` while provisional (the deviation says little then)."""
    return f"{rating}?" if provisional else f"{rating} ± {deviation}"


def change_text(change: int) -> str:
    """A rating change with its sign: ``+12``, ``-8``, ``±0``."""
    return "±0" if change == 0 else f"{change:+d}"


def sparkline(values: Sequence[int], width: int = SPARK_POINTS) -> str:
    """The last ``width`` values as block heights between their own lowest and highest
    (a flat history is drawn at half height: no change is not a low)."""
    shown = list(values)[-width:] if width > 0 else []
    if not shown:
        return ""
    low, high = min(shown), max(shown)
    if high == low:
        return SPARKS[len(SPARKS) // 2 - 1] * len(shown)
    top = len(SPARKS) - 1
    return "".join(SPARKS[round((v - low) * top / (high - low))] for v in shown)


def cell_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: East Asian wide and full-width characters
    take two (a Chinese name lines up with a Latin one), combining marks none."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def text_table(rows: Sequence[Sequence[str]], right: Collection[int] = ()) -> list[str]:
    """``rows`` as lines of aligned columns two spaces apart; the columns in ``right`` are
    aligned to the right (numbers), the last column is never padded."""
    if not rows:
        return []
    count = max(len(r) for r in rows)
    widths = [max((cell_width(r[i]) for r in rows if i < len(r)), default=0) for i in range(count)]
    lines = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            gap = " " * (widths[i] - cell_width(cell))
            if i in right:
                cells.append(gap + cell)
            else:
                cells.append(cell if i == len(row) - 1 else cell + gap)
        lines.append("  ".join(cells).rstrip())
    return lines


# -- profile ---------------------------------------------------------------------------
def profile_rating_lines(ratings: Sequence[sm.ProfileRating], lang: Language) -> list[str]:
    """An account's ratings per game: rating, rated games, the last game's change and a
    sparkline of the history; a legend for ``?`` when one is provisional."""
    t = lang.t
    if not ratings:
        return [t("ratings.heading"), "  " + t("ratings.none")]
    rows: list[list[str]] = [
        [
            t("ratings.col_game"),
            t("ratings.col_rating"),
            t("ratings.col_games"),
            t("ratings.col_change"),
            t("ratings.col_history"),
        ]
    ]
    for r in ratings:
        rows.append(
            [
                r.game,
                rating_text(r.rating, r.deviation, r.provisional),
                str(r.games),
                change_text(r.change) if r.games else "",
                sparkline([p.rating for p in r.history]),
            ]
        )
    lines = [t("ratings.heading")]
    lines += ["  " + line for line in text_table(rows, right={2, 3})]
    if any(r.provisional for r in ratings):
        lines.append("  " + t("ratings.provisional"))
    return lines


# -- leaderboard -----------------------------------------------------------------------
def entry_name(entry: sm.LeaderboardEntry, lang: Language, me: str | None) -> str:
    """A listed name: a bot's always marked as one, the reader's own marked as theirs."""
    name = lang.t("seat.bot", name=entry.name) if entry.bot else entry.name
    if me is not None and entry.name.casefold() == me.casefold():
        name = lang.t("leaderboard.you", name=name)
    return name


def leaderboard_lines(
    board: sm.Leaderboard, title: str, lang: Language, *, me: str | None = None
) -> list[str]:
    """A leaderboard page as the terminal prints it: a heading, the table, and where the
    next page is."""
    t = lang.t
    who = t("leaderboard.bots") if board.bots else t("leaderboard.people")
    pages = max(board.pages, 1)
    lines = [t("leaderboard.title", game=title, who=who, page=board.page, pages=pages)]
    if not board.entries:
        if board.page > board.pages >= 1:
            lines.append(t("leaderboard.past_end", page=board.page, pages=board.pages))
        else:
            lines.append(t("leaderboard.empty"))
        return lines
    rows: list[list[str]] = [
        [
            t("leaderboard.col_rank"),
            t("leaderboard.col_name"),
            t("leaderboard.col_rating"),
            t("leaderboard.col_games"),
            t("leaderboard.col_last"),
        ]
    ]
    for e in board.entries:
        rows.append(
            [
                str(e.rank),
                entry_name(e, lang, me),
                rating_text(e.rating, e.deviation, False),
                str(e.games),
                day(e.last_played),
            ]
        )
    lines += text_table(rows, right={0, 3})
    return lines
