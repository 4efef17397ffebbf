"""Dou Dizhu for three players, one deal: auction then card play (rules/doudizhu.md).

Inside, hands are card masks and rank-count vectors (engine.doudizhu.hands,
engine.doudizhu.combos): legal moves come from rank-level tables and are
turned into concrete :class:`Play` values only at the interface.  The state
is a named tuple and :meth:`DoudizhuGame.apply` has a short path for the card
play, since random playouts and search run through these two calls.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine.cards import DOUDIZHU_54, Card, format_cards
from engine.doudizhu.combos import (
    COMBO_INDEX,
    Move,
    beats,
    classify,
    unpack,
)
from engine.doudizhu.hands import (
    CARD_BIT,
    cards_of,
    follow_plays,
    lead_plays,
    mask_of,
    packed_counts,
)
from engine.doudizhu.rules import MAX_BID, auction_end, score_deal
from engine.doudizhu.state import (
    Action,
    Bid,
    Call,
    DoudizhuDeal,
    DoudizhuOptions,
    DoudizhuState,
    DoudizhuView,
    Pass,
    Phase,
    Play,
    Step,
    Turn,
)
from engine.game import (
    Contest,
    Event,
    Game,
    IllegalAction,
    Result,
    Seat,
    Transition,
    two_sides,
)
from engine.reasons import Reason, Why, codes
from engine.rng import derive_rng, new_seed, shuffle
from engine.sharing import TO_ACT, shared_counts

HAND_SIZE = 17
BOTTOM_SIZE = 3
PASS = Pass()
_new_state = tuple.__new__

_VIEW_CARDS: dict[int, tuple[Card, ...]] = {}
_VIEW_CARDS_KEPT = 8192


def _view_cards(mask: int) -> tuple[Card, ...]:
    """``cards_of(mask)``, one tuple per mask: a hand that did not change since the last
    view (every hand but the mover's) is the very same object, which the server's
    :class:`engine.codec.PlainMemo` then does not convert again.  At most
    :data:`_VIEW_CARDS_KEPT` masks are kept; then it starts afresh."""
    cards = _VIEW_CARDS.get(mask)
    if cards is None:
        if len(_VIEW_CARDS) >= _VIEW_CARDS_KEPT:
            _VIEW_CARDS.clear()
        cards = _VIEW_CARDS[mask] = cards_of(mask)
    return cards


_AUCTION_LEGAL: tuple[tuple[Action, ...], ...] = tuple(
    (PASS, *(Bid(v) for v in range(high + 1, MAX_BID + 1))) for high in range(MAX_BID)
)


def read_play(play: Play) -> tuple[Move, int]:
    """The rank-level reading and card mask of ``play``; raise IllegalAction if invalid."""
    parsed = play._parsed
    if parsed is not None:
        return parsed
    mask = mask_of(play.cards)
    if mask <= 0:
        raise IllegalAction("bad_cards", "a play needs distinct Dou Dizhu cards")
    if not isinstance(play.combo, str) or play.combo not in COMBO_INDEX:
        raise IllegalAction(
            "unknown_combo",
            f"{play.combo!r} is not a combination type",
            Reason(Why.UNKNOWN_COMBO, {"combo": str(play.combo)}),
        )
    move = classify(unpack(packed_counts(mask)), play.combo)
    if move is None:
        text = format_cards(cards_of(mask))
        raise IllegalAction(
            "not_a_combination",
            f"{text} is not a valid {play.combo}",
            Reason(Why.NOT_A_COMBINATION, {"cards": codes(play.cards), "combo": play.combo}),
        )
    parsed = (move, mask)
    # a pure function of the public fields: kept so that a play read once (one
    # in the history, in any suits) is not read again by every later look
    object.__setattr__(play, "_parsed", parsed)
    return parsed


_new = object.__new__
_set_kind = vars(Event)["kind"].__set__
_set_data = vars(Event)["data"].__set__
_set_audience = vars(Event)["audience"].__set__
_set_state = vars(Transition)["state"].__set__
_set_events = vars(Transition)["events"].__set__


def _transition(state: DoudizhuState, events: tuple[Event, ...]) -> Transition[DoudizhuState]:
    """``Transition(state, events)`` built field by field (the card play's hot path:
    a frozen dataclass's ``__init__`` costs several times more)."""
    transition: Transition[DoudizhuState] = _new(Transition)
    _set_state(transition, state)
    _set_events(transition, events)
    return transition


def _replace_hand(hands: tuple[int, int, int], seat: int, hand: int) -> tuple[int, int, int]:
    if seat == 0:
        return (hand, hands[1], hands[2])
    if seat == 1:
        return (hands[0], hand, hands[2])
    return (hands[0], hands[1], hand)


class DoudizhuGame(Game[DoudizhuOptions, DoudizhuState, Action, DoudizhuView]):
    """Dou Dizhu behind the common :class:`~engine.game.Game` interface."""

    id = "doudizhu"
    title = "Dou Dizhu"
    deck = DOUDIZHU_54
    options_type = DoudizhuOptions
    action_types = (Bid, Pass, Play)
    view_type = DoudizhuView
    zero_sum = True
    default_pattern = "french"

    def num_seats(self, options: DoudizhuOptions) -> int:
        """Dou Dizhu is for exactly three players."""
        return 3

    # -- dealing (Setup and bidding) -------------------------------------------
    def new_state(self, options: DoudizhuOptions, seed: int) -> DoudizhuState:
        """A deal whose shuffle and first bidder derive from ``seed``."""
        return self._deal(options, seed, 0)

    def _deal(self, options: DoudizhuOptions, seed: int, attempt: int) -> DoudizhuState:
        """Shuffle (attempt ``attempt``: redeals use fresh shuffles), 17 each, 3 bottom."""
        rng = derive_rng(seed, "deal", attempt)
        order = list(_DECK_BITS)  # the deck's cards in its order, as mask bits
        shuffle(rng, order)
        first = rng.randrange(3)
        hands = (sum(order[0:17]), sum(order[17:34]), sum(order[34:51]))
        return self._fresh(options, seed, attempt, first, hands, sum(order[51:]))

    def _fresh(
        self,
        options: DoudizhuOptions,
        seed: int,
        attempt: int,
        first: int,
        hands: tuple[int, int, int],
        bottom: int,
    ) -> DoudizhuState:
        counts = (packed_counts(hands[0]), packed_counts(hands[1]), packed_counts(hands[2]))
        return DoudizhuState(
            options=options,
            seed=seed,
            attempt=attempt,
            first_bidder=first,
            hands=hands,
            counts=counts,
            bottom=bottom,
            auction=(),
            bid=0,
            bidder=None,
            landlord=None,
            turn=first,
            passes=0,
            last=None,
            last_seat=None,
            history=(),
            bombs=0,
            winner=None,
        )

    def from_deal(self, options: DoudizhuOptions, deal: DoudizhuDeal) -> DoudizhuState:
        """A deal from explicit hands and bottom (for tests and analysis)."""
        cards = [c for h in deal.hands for c in h] + list(deal.bottom)
        if sorted(cards) != sorted(self.deck.cards):
            raise ValueError("an explicit Dou Dizhu deal must hold each of the 54 cards once")
        if any(len(h) != HAND_SIZE for h in deal.hands) or len(deal.bottom) != BOTTOM_SIZE:
            raise ValueError("each hand holds 17 cards and the bottom 3")
        if deal.first_bidder not in (0, 1, 2):
            raise ValueError("first_bidder must be seat 0, 1 or 2")
        hands = tuple(mask_of(h) for h in deal.hands)
        return self._fresh(
            options,
            deal.seed,
            0,
            deal.first_bidder,
            (hands[0], hands[1], hands[2]),
            mask_of(deal.bottom),
        )

    def start_events(self, state: DoudizhuState) -> tuple[Event, ...]:
        """The deal: counts and first bidder to all, each hand to its owner."""
        return self._deal_events(state, "deal")

    def _deal_events(self, state: DoudizhuState, kind: str) -> tuple[Event, ...]:
        return (
            Event(
                kind,
                {
                    "redeals": state.attempt,
                    "first_bidder": state.first_bidder,
                    "hand_counts": [HAND_SIZE] * 3,
                    "bottom_count": BOTTOM_SIZE,
                },
            ),
            *(
                Event("hand", {"seat": s, "hand": cards_of(state.hands[s])}, frozenset((s,)))
                for s in range(3)
            ),
        )

    # -- playing ---------------------------------------------------------------
    def to_act(self, state: DoudizhuState) -> tuple[Seat, ...]:
        """The one seat whose turn it is (none once the deal is over)."""
        turn = state.turn
        return () if turn is None else TO_ACT[turn]

    def legal_actions(self, state: DoudizhuState, seat: Seat) -> tuple[Action, ...]:
        """Calls in the auction; in the play every combination (that beats), or a pass."""
        if state.turn != seat:
            return ()
        if state.landlord is None:
            legal = _AUCTION_LEGAL[state.bid]
        elif state.last is None:
            legal = lead_plays(state.hands[seat], state.counts[seat])
        else:
            last = state.last
            target = (last._parsed or read_play(last))[0]
            legal = follow_plays(state.hands[seat], state.counts[seat], target, PASS)
        return legal

    def apply(self, state: DoudizhuState, seat: Seat, action: Action) -> Transition[DoudizhuState]:
        """:meth:`Game.apply` with a short path for the card play (the search inner loop)."""
        if state.turn == seat:  # so the deal is not over
            kind = type(action)
            if state.landlord is None:
                if kind is Bid or kind is Pass:
                    return self._apply_call(state, seat, action)
            elif kind is Play:
                return self._apply_play(state, seat, action)  # type: ignore[arg-type]
            elif kind is Pass:
                return self._apply_pass(state, seat)
        return super().apply(state, seat, action)

    def _apply(self, state: DoudizhuState, seat: Seat, action: Action) -> Transition[DoudizhuState]:
        if state.landlord is None:
            return self._apply_call(state, seat, action)
        kind = type(action)
        if kind is Play:
            return self._apply_play(state, seat, action)  # type: ignore[arg-type]
        if kind is Pass:
            return self._apply_pass(state, seat)
        raise IllegalAction("auction_over", "the auction is over: play cards or pass")

    # -- the auction (Setup and bidding) -----------------------------------------
    def _apply_call(
        self, state: DoudizhuState, seat: Seat, action: Action
    ) -> Transition[DoudizhuState]:
        if isinstance(action, Play):
            raise IllegalAction("auction_in_progress", "the auction is on: bid or pass")
        if isinstance(action, Bid):
            value = action.value
            if type(value) is not int or not 1 <= value <= MAX_BID:
                raise IllegalAction(
                    "bad_bid",
                    f"a bid is 1, 2 or 3, not {value!r}",
                    Reason(Why.BAD_BID, {"value": str(value)}),
                )
            if value <= state.bid:
                raise IllegalAction(
                    "bid_too_low",
                    f"a bid must top the highest bid {state.bid}, not {value}",
                    Reason(Why.BID_TOO_LOW, {"value": value, "bid": state.bid}),
                )
            bid, passes = value, 0
            bidder: int | None = seat
        else:
            bid, bidder, passes = state.bid, state.bidder, state.passes + 1
        call = Call(seat, bid if isinstance(action, Bid) else 0)
        events = [Event("bid" if call.bid else "pass", {"seat": seat, "bid": call.bid})]
        end = auction_end(bid, passes)
        if end == "redeal":
            nxt = self._deal(state.options, state.seed, state.attempt + 1)
            events.extend(self._deal_events(nxt, "redeal"))
            return Transition(nxt, tuple(events))
        auction = (*state.auction, call)
        if end is None:
            nxt = _new_state(
                DoudizhuState,
                (
                    *state[:7],  # options … bottom (DoudizhuState's field order)
                    auction,
                    bid,
                    bidder,
                    state.landlord,
                    (seat + 1) % 3,  # turn
                    passes,
                    *state[13:],  # last … winner
                ),
            )
            return _transition(nxt, tuple(events))
        assert bidder is not None
        hands = _replace_hand(state.hands, bidder, state.hands[bidder] | state.bottom)
        counts = list(state.counts)
        counts[bidder] = packed_counts(hands[bidder])
        nxt = state._replace(
            hands=hands,
            counts=(counts[0], counts[1], counts[2]),
            auction=auction,
            bid=bid,
            bidder=bidder,
            landlord=bidder,
            turn=bidder,
            passes=0,
        )
        events.append(
            Event("landlord", {"seat": bidder, "bid": bid, "bottom": cards_of(state.bottom)})
        )
        return Transition(nxt, tuple(events))

    # -- the card play (Tricks) ------------------------------------------------
    def _apply_play(
        self, state: DoudizhuState, seat: Seat, action: Play
    ) -> Transition[DoudizhuState]:
        parsed = action._parsed
        move, mask = parsed if parsed is not None else read_play(action)
        hand = state.hands[seat]
        # any suit choice of held cards is legal (Cards, Decision)
        if mask & ~hand:
            gone = cards_of(mask & ~hand)
            raise IllegalAction(
                "not_in_hand",
                f"{format_cards(gone)} not in your hand",
                Reason(Why.NOT_IN_HAND, {"cards": codes(gone)}),
            )
        last = state.last
        if last is not None and not beats(move, (last._parsed or read_play(last))[0]):
            before = read_play(last)[0]
            raise IllegalAction(
                "does_not_beat",
                f"{move.combo} {move.ranks_text()} does not beat "
                f"{before.combo} {before.ranks_text()}",
                Reason(
                    Why.DOES_NOT_BEAT,
                    {
                        "combo": move.combo,
                        "cards": codes(action.cards),
                        "last_combo": before.combo,
                        "last_cards": codes(last.cards),
                    },
                ),
            )
        hand ^= mask
        hands = _replace_hand(state.hands, seat, hand)
        c = state.counts
        left = c[seat] - move.packed
        counts = (
            (left, c[1], c[2])
            if seat == 0
            else (c[0], left, c[2])
            if seat == 1
            else (c[0], c[1], left)
        )
        bombs = state.bombs + 1 if move.combo_index >= _BOMB_INDEX else state.bombs
        history = (*state.history, Turn(seat, action))
        event = _new(Event)
        _set_kind(event, "play")
        _set_data(event, {"seat": seat, "cards": action.cards, "combo": move.combo})
        _set_audience(event, None)
        over = hand == 0
        # the fields in order (DoudizhuState), those kept taken as slices
        nxt = _new_state(
            DoudizhuState,
            (
                *state[:4],  # options, seed, attempt, first_bidder
                hands,
                counts,
                *state[6:11],  # bottom, auction, bid, bidder, landlord
                None if over else (seat + 1) % 3,  # turn
                0,  # passes
                action,  # last
                seat,  # last_seat
                history,
                bombs,
                seat if over else None,  # winner
            ),
        )
        return _transition(nxt, (event, self._end_event(nxt)) if over else (event,))

    def _apply_pass(self, state: DoudizhuState, seat: Seat) -> Transition[DoudizhuState]:
        if state.last is None:
            raise IllegalAction("must_lead", "you lead this trick: play a combination")
        passes = state.passes + 1
        new_lead = passes == 2
        events = _PASS_EVENTS[seat] if not new_lead else _NEW_LEAD_EVENTS[seat]
        nxt = _new_state(
            DoudizhuState,
            (
                *state[:11],  # options … landlord (DoudizhuState's field order)
                (seat + 1) % 3,  # turn
                0 if new_lead else passes,
                None if new_lead else state.last,
                state.last_seat,
                (*state.history, _PASS_STEPS[seat]),
                state.bombs,
                None,  # winner
            ),
        )
        return _transition(nxt, events)

    def _end_event(self, state: DoudizhuState) -> Event:
        result = self.result(state)
        assert result is not None
        return Event("deal_over", {"scores": list(result.scores), **result.summary})

    # -- information -----------------------------------------------------------
    def view(self, state: DoudizhuState, seat: Seat | None) -> DoudizhuView:
        """Own hand, other hands as counts, everything public; legal actions on one's turn."""
        phase: Phase
        if state.winner is not None:
            phase = "over"
        elif state.landlord is None:
            phase = "bidding"
        else:
            phase = "play"
        h = state.hands
        return DoudizhuView(  # positional, in field order: a keyword call builds a dict (hot path)
            state.options,  # options
            seat,  # seat
            self.to_act(state),  # to_act
            phase,  # phase
            state.attempt,  # redeals
            state.first_bidder,  # first_bidder
            _view_cards(h[seat]) if seat is not None else (),  # hand
            shared_counts((h[0].bit_count(), h[1].bit_count(), h[2].bit_count())),  # hand_counts
            state.auction,  # auction
            state.bid,  # bid
            state.landlord,  # landlord
            _view_cards(state.bottom) if state.landlord is not None else (),  # bottom
            state.last,  # last
            state.last_seat,  # last_seat
            state.history,  # history
            state.bombs,  # bombs
            self._multiplier(state),  # multiplier
            state.winner,  # winner
            self.legal_actions(state, seat) if seat is not None else (),  # legal
        )

    def _multiplier(self, state: DoudizhuState) -> int:
        result = self.result(state)
        if result is not None:
            return int(result.summary["multiplier"])
        return 1 << state.bombs

    def is_over(self, state: DoudizhuState) -> bool:
        """The deal is over once a player has played all cards."""
        return state.winner is not None

    def seat_role(self, result: Result, seat: Seat) -> str | None:
        """``landlord``, ``farmer_after`` (plays right after the landlord) or ``farmer_before``."""
        landlord = int(result.summary["landlord"])
        if seat == landlord:
            return "landlord"
        return "farmer_after" if seat == (landlord + 1) % 3 else "farmer_before"

    def result(self, state: DoudizhuState) -> Result | None:
        """Zero-sum points: each farmer ±bid×multiplier, the landlord ∓ twice that."""
        if state.winner is None or state.landlord is None:
            return None
        landlord = state.landlord
        score = score_deal(state.history, landlord, state.winner, state.bid, state.bombs)
        winners = (
            frozenset((landlord,))
            if score.landlord_won
            else frozenset(s for s in range(3) if s != landlord)
        )
        return Result(
            scores=score.scores,
            winners=winners,
            summary={
                "landlord": landlord,
                "landlord_won": score.landlord_won,
                "farmers_won": not score.landlord_won,
                "bid": state.bid,
                "multiplier": score.multiplier,
                "spring": score.spring,
                "reverse_spring": score.reverse_spring,
                "bombs": state.bombs,
                "redeals": state.attempt,
                "landlord_points": score.scores[landlord],
                "farmer_points": score.scores[(landlord + 1) % 3],
            },
        )

    # -- hidden information ------------------------------------------------------
    def _played_mask(self, history: Sequence[Step]) -> int:
        mask = 0
        for turn in history:
            if turn.play is not None:
                mask |= read_play(turn.play)[1]
        return mask

    def contests(self, state: DoudizhuState) -> tuple[Contest, ...]:
        """One contest a deal: the landlord against both farmers (a redealt auction is
        part of the same deal)."""
        result = self.result(state)
        if result is None or state.landlord is None:
            return ()
        landlord = state.landlord
        farmers = frozenset(s for s in range(3) if s != landlord)
        won = landlord in result.winners
        return (two_sides(frozenset((landlord,)), farmers, won, role="landlord"),)

    def sample_world(self, view: DoudizhuView, rng: random.Random) -> DoudizhuState:
        """Deal the unseen cards to the other seats by their counts (and the hidden bottom)."""
        history = view.history
        played = self._played_mask(history)
        own = mask_of(view.hand) if view.seat is not None and view.hand else 0
        public_bottom = mask_of(view.bottom) if view.bottom else 0
        forced = public_bottom & ~played  # the landlord still holds these
        pool = [c for c in self.deck.cards if not CARD_BIT[c] & (own | played | public_bottom)]
        shuffle(rng, pool)
        hands = [0, 0, 0]
        for s in range(3):
            if s == view.seat:
                hands[s] = own
                continue
            hand = forced if s == view.landlord else 0
            need = view.hand_counts[s] - hand.bit_count()
            hand |= sum(CARD_BIT[c] for c in pool[:need])
            pool = pool[need:]
            hands[s] = hand
        bottom = public_bottom if view.landlord is not None else sum(CARD_BIT[c] for c in pool)
        bids = [call for call in view.auction if call.bid]
        if view.phase == "bidding":
            passes = len(view.auction) - (view.auction.index(bids[-1]) + 1 if bids else 0)
        elif view.last is None or view.last_seat is None or not view.to_act:
            passes = 0
        else:
            passes = (view.to_act[0] - view.last_seat) % 3 - 1
        return DoudizhuState(
            options=view.options,
            seed=new_seed(rng),
            attempt=view.redeals,
            first_bidder=view.first_bidder,
            hands=(hands[0], hands[1], hands[2]),
            counts=(packed_counts(hands[0]), packed_counts(hands[1]), packed_counts(hands[2])),
            bottom=bottom,
            auction=view.auction,
            bid=view.bid,
            bidder=bids[-1].seat if bids else None,
            landlord=view.landlord,
            turn=view.to_act[0] if view.to_act else None,
            passes=passes,
            last=view.last,
            last_seat=view.last_seat,
            history=history,
            bombs=view.bombs,
            winner=view.winner,
        )

    def redeal_hidden(
        self, state: DoudizhuState, seat: Seat | None, rng: random.Random
    ) -> DoudizhuState:
        """Shuffle every card ``seat`` cannot see: other hands, the bottom while hidden.

        Bottom cards the landlord took are public and stay in the landlord's hand.
        """
        hidden = [s for s in range(3) if s != seat]
        played = self._played_mask(state.history)
        forced = state.bottom & ~played if state.landlord is not None else 0
        pool_mask = 0
        for s in hidden:
            pool_mask |= state.hands[s]
        if state.landlord is None:
            pool_mask |= state.bottom
        pool_mask &= ~forced
        pool = list(cards_of(pool_mask))
        shuffle(rng, pool)
        hands = list(state.hands)
        for s in hidden:
            keep = forced if s == state.landlord else 0
            need = state.hands[s].bit_count() - keep.bit_count()
            hands[s] = keep | sum(CARD_BIT[c] for c in pool[:need])
            pool = pool[need:]
        bottom = sum(CARD_BIT[c] for c in pool) if state.landlord is None else state.bottom
        return state._replace(
            hands=(hands[0], hands[1], hands[2]),
            counts=(packed_counts(hands[0]), packed_counts(hands[1]), packed_counts(hands[2])),
            bottom=bottom,
            seed=new_seed(rng),
        )

    def card_zones(self, state: DoudizhuState) -> Mapping[str, Sequence[Card]]:
        """Three hands, the bottom (until the landlord takes it) and the played cards."""
        return {
            "hand0": cards_of(state.hands[0]),
            "hand1": cards_of(state.hands[1]),
            "hand2": cards_of(state.hands[2]),
            "bottom": cards_of(state.bottom) if state.landlord is None else (),
            "played": cards_of(self._played_mask(state.history)),
        }


_BOMB_INDEX = COMBO_INDEX["bomb"]
_DECK_BITS = tuple(CARD_BIT[c] for c in DOUDIZHU_54.cards)
# events and history steps of a pass are the same values every time: built once
_PASS_STEPS: tuple[Step, ...] = tuple(Turn(s, None) for s in range(3))
_PASS_EVENTS = tuple((Event("pass", {"seat": s}),) for s in range(3))
_NEW_LEAD_EVENTS = tuple(
    (Event("pass", {"seat": s}), Event("lead", {"seat": (s + 1) % 3})) for s in range(3)
)
assert COMBO_INDEX["rocket"] == _BOMB_INDEX + 1
