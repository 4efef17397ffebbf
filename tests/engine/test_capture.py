"""engine/capture.py: what the scopa family shares (the table before a play seen)."""

from __future__ import annotations

from engine.capture import play_seen, table_before
from engine.cards import SCOPA_40

INDEX = {c: i for i, c in enumerate(SCOPA_40.cards)}


def test_a_capture_puts_the_cards_taken_back_in_card_order():
    assert table_before(7, frozenset({5, 2}), [9, 30]) == [9, 30, 2, 5]


def test_a_card_laid_comes_off_the_end_of_the_table():
    assert table_before(7, frozenset(), [9, 30, 7]) == [9, 30]


def test_a_table_that_does_not_show_the_play_is_none():
    assert table_before(7, frozenset(), [9, 7, 30]) is None  # not laid last
    assert table_before(7, frozenset(), []) is None


def test_the_table_given_is_the_one_changed():
    table = [1, 7]
    assert table_before(7, frozenset(), table) is table
    assert table == [1]


def test_a_play_seen_reads_in_ints_with_the_table_before_it():
    seven, three, four, king = SCOPA_40.parse_many("7C 3S 4H KS")
    # 7C took 3S + 4H, leaving KS
    seen = play_seen(seven, (three, four), [king], INDEX)
    taken = frozenset({INDEX[three], INDEX[four]})
    assert seen == (INDEX[seven], taken, [INDEX[king], *sorted(taken)])
    # KS laid on 3S: it is the table's last card
    assert play_seen(king, (), [three, king], INDEX) == (INDEX[king], frozenset(), [INDEX[three]])
    assert play_seen(king, (), [king, three], INDEX) is None
