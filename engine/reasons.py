"""Why the rules refuse a move, in words no language owns: a key plus its parameters.

:class:`~engine.game.IllegalAction` keeps its stable ``code`` and its English
``message``; its :class:`Reason` says the same as data, so every client can
say it in its player's language and name cards and suits as its screen does
(the server sends it to clients that ask, ``docs/protocol.md``).  One code may
have several reasons: ``bad_capture`` is "captures nothing" or "may capture
only these".

Parameters are plain values whose kind the name tells, so a client knows how
to show them without knowing the game:

* ``card``, ``called_ace``: a card code (``7D``);
* ``cards``, ``last_cards``: card codes;
* ``choices``: the alternatives a card may capture, each its codes joined by spaces;
* ``suit``: a suit letter of the table's deck (``G``);
* ``combo``, ``last_combo``: a Dou Dizhu combination (``pair_sequence``);
* ``contract``, ``above``: a Schafkopf contract (``rufer``);
* ``value``, ``bid``, ``total``, ``seat``: numbers; ``action``: a name as sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

ReasonArg = str | int | tuple[str, ...]
"""A parameter's value: a code or name, a number, or several codes."""


class Why(StrEnum):
    """Every reason a game of this engine gives for refusing a move."""

    # any game (engine.game.Game.apply, decode_action)
    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    UNKNOWN_ACTION = "unknown_action"
    BAD_ACTION = "bad_action"
    NOT_IN_HAND = "not_in_hand"
    # Scopa and Cicera: captures
    CAPTURES_NOTHING = "captures_nothing"
    MUST_CAPTURE = "must_capture"
    MAY_CAPTURE_ONLY = "may_capture_only"
    NOT_ON_TABLE = "not_on_table"
    COURT_CAPTURE = "court_capture"
    RANK_MISMATCH = "rank_mismatch"
    COURT_IN_SUM = "court_in_sum"
    SUM_MISMATCH = "sum_mismatch"
    # Dou Dizhu
    BAD_CARDS = "bad_cards"
    UNKNOWN_COMBO = "unknown_combo"
    NOT_A_COMBINATION = "not_a_combination"
    AUCTION_OVER = "auction_over"
    AUCTION_IN_PROGRESS = "auction_in_progress"
    BAD_BID = "bad_bid"
    BID_TOO_LOW = "bid_too_low"
    DOES_NOT_BEAT = "does_not_beat"
    MUST_LEAD = "must_lead"
    # Schafkopf
    NOT_PLAYING = "not_playing"
    NOT_BIDDING = "not_bidding"
    BAD_CONTRACT = "bad_contract"
    HEART_ACE_NOT_CALLABLE = "heart_ace_not_callable"
    RUFER_NEEDS_SUIT = "rufer_needs_suit"
    SOLO_NEEDS_SUIT = "solo_needs_suit"
    TAKES_NO_SUIT = "takes_no_suit"
    NOT_HIGHER = "not_higher"
    HOLDS_CALLED_ACE = "holds_called_ace"
    NO_PLAIN_CARD = "no_plain_card"
    NO_SUIT_CARD = "no_suit_card"
    SIE_NEEDS_ALL = "sie_needs_all"
    MUST_LEAD_CALLED_ACE = "must_lead_called_ace"
    MUST_PLAY_CALLED_ACE = "must_play_called_ace"
    MAY_NOT_DISCARD_CALLED_ACE = "may_not_discard_called_ace"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_FOLLOW_TRUMP = "must_follow_trump"


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a move is refused: ``why`` and the parameters its sentence names."""

    why: Why
    params: Mapping[str, ReasonArg] = field(default_factory=dict)


def codes(cards: Iterable[object]) -> tuple[str, ...]:
    """Cards (each printing as its code) as sorted codes: one refusal always reads the same."""
    return tuple(sorted(str(c) for c in cards))
