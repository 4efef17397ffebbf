"""The table core's values: a seat's copy (taken before every command that may be
rolled back) holds every field."""

from __future__ import annotations

import dataclasses

from server.tables.values import SeatSlot


def test_a_seat_copy_holds_every_field() -> None:
    slot = SeatSlot(
        kind="human",
        player_id="p_1",
        name="ann",
        level="hard",
        connected=False,
        away_since=12.5,
        left=True,
        bot=True,
        account="a_1",
    )
    assert all(  # a field added to SeatSlot is set above to something not its default
        getattr(slot, f.name) != f.default for f in dataclasses.fields(SeatSlot)
    )
    copied = slot.copy()
    assert copied == slot and copied is not slot
    copied.connected = True  # the copy is its own object
    assert slot.connected is False
