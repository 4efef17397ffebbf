"""rules/schafkopf.md — End of play and Scoring: worked examples, every contract.

Each deal is written as eight trick rows listing the card each seat (0–3)
plays in that trick; the hands are the columns.  Seat 3 deals, so seat 0
bids first and leads.  The expected figures are counted by hand in the
comments (card points: A 11, T 10, K 4, O 3, U 2).
"""

from __future__ import annotations

from engine.schafkopf.state import Announce, DealRecord
from tests.engine.schafkopf.helpers import GAME, bid, columns, deal, play_rows, scored

# Rufer on the leaves ace: seat 2 holds AG and OH, so the declarer's side held
# OE OG OH (OS is seat 1's): three Laufende.
RUFER_SCHNEIDER = [
    "OE 9H KH 7H",  # s0 wins  7
    "OG US OH 8H",  # s0 wins  8
    "UE OS TE UH",  # s1 wins 17 (OS beats UE; the partner discards TE)
    "AE 7E AS KE",  # s1 leads 7E, s0 wins 26
    "9G 8E AG 7G",  # s0 leads the called suit: AG must fall, s2 wins 11
    "UG 9E TG 8G",  # s2 leads TG, s0 trumps, wins 12
    "AH 7S KG 9S",  # s0 wins 15
    "TH 8S TS KS",  # s0 wins 24
]

# Rufer on the acorns ace (AE with seat 2): the defenders took every trick and
# held OE OG OH OS UE UG (UH is the declarer's): six Laufende for them.
RUFER_DEFENDERS_SCHWARZ = [
    "7E 8E AE UG",  # s0 leads E, the partner must play AE, s3 trumps: 13
    "8H OE 7H OS",  # s3 leads OS, s1 OE wins 6
    "9H OG US TH",  # s1 wins 15
    "UH UE 9S KH",  # s1 wins 8 (UE beats UH)
    "7S AH KS OH",  # s1 leads AH, s3 OH wins 18
    "9G TE 7G AG",  # s3 wins 21
    "8G KE KG TG",  # s3 wins 18
    "8S 9E TS AS",  # s3 wins 21
]

# Rufer on the bells ace (AS with seat 2); the bells are never led, so the
# partner keeps AS to the last trick.  OH is a defender's: two top trumps only.
RUFER_PLAIN_WIN = [
    "OE OH OS UH",  # s0 11
    "OG US UG 8H",  # s0 7
    "UE 7H 9H 7S",  # s0 2
    "AH 8E KS TS",  # s0 25
    "TH 9E 8S 9G",  # s0 10
    "KH KE AG 8G",  # s0 19
    "7G TE 7E KG",  # s3 wins 14 (the partner may not discard AS: 7E)
    "9S AE AS TG",  # s3 leads TG, wins 32 (AS, the partner's last card)
]

# Solo in leaves: the declarer holds OE OG OH (OS is seat 1's) and takes all.
SOLO_LEAVES = [
    "OE KG 8G 7G",
    "OG OS 9G US",
    "OH 7E UH 7S",
    "UE 8E 8H 8S",
    "AS 9E 9H 9S",
    "UG KE KH KS",
    "AG TE TH TS",
    "TG AE AH 7H",
]

# Wenz: the declarer holds UE UG (UH is seat 1's): two Laufende.  Seat 2 takes
# the fourth trick with AH over the declarer's OH (a plain heart in Wenz).
WENZ_77 = [
    "UE UH US 7S",  # s0 6
    "AE 9E 8E 8S",  # s0 11
    "AG 9G 8G 9S",  # s0 11
    "OH 7H AH 9H",  # s2 wins 14
    "UG KE TH 8H",  # s2 leads TH, s0 trumps: 16
    "TE OE 7E OS",  # s0 16 (TE beats OE in Wenz)
    "TG OG 7G KS",  # s0 17
    "TS KG KH AS",  # s3 wins 29
]

# Wenz for all eight tricks.
WENZ_ALL = [
    "UE UH US 7S",
    "AE 9E 8E 8S",
    "AG 9G 8G 9S",
    "AS 7H KH KS",
    "TS KE 7E OS",
    "TE OE TH 9H",
    "TG OG 7G 8H",
    "UG KG AH OH",
]


def run(rows: list[str], *words: str) -> DealRecord:
    state = bid(deal(*columns(rows)), *words)
    state, events = play_rows(state, rows)
    record = scored(events)
    assert state.totals == record.settlement  # the running totals took the settlement
    return record  # type: ignore[no-any-return]


def test_rufer_won_with_schneider_and_the_declarer_sides_laufende() -> None:
    r = run(RUFER_SCHNEIDER, "rufer G", "pass", "pass", "pass")
    assert (r.declarer, r.partner) == (0, 2)
    assert (r.declarer_points, r.defender_points, r.declarer_tricks) == (103, 17, 7)
    assert r.declarer_won and r.schneider and not r.schwarz
    assert (r.laufende, r.laufende_side) == (3, "declarer")
    # 1 (Rufer) + 1 (Schneider, 103 >= 91) + 3 (Laufende)
    assert r.value == 5
    assert r.settlement == (5, -5, 5, -5)


def test_rufer_lost_schwarz_with_the_defenders_laufende() -> None:
    r = run(RUFER_DEFENDERS_SCHWARZ, "rufer E", "pass", "pass", "pass")
    assert (r.declarer, r.partner) == (0, 2)
    assert (r.declarer_points, r.defender_points, r.declarer_tricks) == (0, 120, 0)
    assert not r.declarer_won and r.schwarz and not r.schneider
    assert (r.laufende, r.laufende_side) == (6, "defenders")
    # 1 + 2 (Schwarz instead of Schneider) + 6 (OE OG OH OS UE UG)
    assert r.value == 9
    assert r.settlement == (-9, 9, -9, 9)


def test_rufer_won_plainly_two_top_trumps_are_no_laufende() -> None:
    r = run(RUFER_PLAIN_WIN, "rufer S", "pass", "pass", "pass")
    assert (r.declarer_points, r.defender_points, r.declarer_tricks) == (74, 46, 6)
    assert r.declarer_won and not r.schneider and not r.schwarz
    assert r.laufende == 0 and r.laufende_side is None
    assert r.value == 1
    assert r.settlement == (1, -1, 1, -1)


def test_solo_won_schwarz_with_three_laufende() -> None:
    r = run(SOLO_LEAVES, "solo G", "pass", "pass", "pass")
    assert (r.declarer_points, r.declarer_tricks) == (120, 8)
    assert r.declarer_won and r.schwarz and not r.schneider
    assert (r.laufende, r.laufende_side) == (3, "declarer")
    # 5 + 2 (Schwarz) + 3; the declarer collects three times the value
    assert r.value == 10
    assert r.settlement == (30, -10, -10, -10)


def test_solo_tout_won_has_no_schwarz_and_double_laufende() -> None:
    r = run(SOLO_LEAVES, "solo_tout G", "pass", "pass", "pass")
    assert r.declarer_won and not r.schwarz and not r.schneider
    assert r.laufende == 3
    # 10 + 3 Laufende x 2
    assert r.value == 16
    assert r.settlement == (48, -16, -16, -16)


def test_wenz_won_with_two_laufende() -> None:
    r = run(WENZ_77, "wenz", "pass", "pass", "pass")
    assert (r.declarer_points, r.defender_points, r.declarer_tricks) == (77, 43, 6)
    assert r.declarer_won and not r.schneider and not r.schwarz
    assert (r.laufende, r.laufende_side) == (2, "declarer")
    assert r.value == 7  # 5 + 2
    assert r.settlement == (21, -7, -7, -7)


def test_wenz_tout_won() -> None:
    r = run(WENZ_ALL, "wenz_tout", "pass", "pass", "pass")
    assert r.declarer_won and r.declarer_tricks == 8 and r.tricks_played == 8
    assert r.value == 14  # 10 + 2 Laufende x 2
    assert r.settlement == (42, -14, -14, -14)


def test_wenz_tout_lost_at_the_first_lost_trick() -> None:
    rows = WENZ_77
    state = bid(deal(*columns(rows)), "wenz_tout", "pass", "pass", "pass")
    state, events = play_rows(state, rows)
    r = scored(events)
    # seat 2 took the fourth trick: the deal ended there
    assert r.tricks_played == 4 and r.declarer_tricks == 3
    assert not r.declarer_won and not r.schneider and not r.schwarz
    assert r.value == 14
    assert r.settlement == (-42, 14, 14, 14)
    assert state.deal_no == 1 and state.phase == "bidding"
    assert [e.kind for e in events].count("play") == 16


def test_sie_wins_at_once_and_counts_eight_laufende() -> None:
    state = deal(
        "OE OG OH OS UE UG UH US",
        "AE TE KE 9E 8E 7E AG TG",
        "KG 9G 8G 7G AH TH KH 9H",
        "8H 7H AS TS KS 9S 8S 7S",
    )
    t = GAME.apply(state, 0, Announce("sie"))
    r = scored(t.events)
    assert r.contract == "sie" and r.declarer_won and r.tricks_played == 0
    assert r.laufende == 8
    # 20 + 8 Laufende x 4
    assert r.value == 52
    assert r.settlement == (156, -52, -52, -52)
    assert "play" not in [e.kind for e in t.events]
    assert t.state.deal_no == 1 and t.state.totals == (156, -52, -52, -52)
