"""Scopa for two players, a match to 11 over several deals (rules/scopa.md)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine.cards import SCOPA_40, Card, format_cards
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
from engine.reasons import Reason, ReasonArg, Why, codes
from engine.rng import derive_rng, new_seed, shuffle
from engine.scopa.rules import (
    VALUE,
    capture_allowed,
    capture_options,
    match_winner,
    reachable_sums,
    score_deal,
    valued,
)
from engine.scopa.state import (
    DealScore,
    LastPlay,
    Play,
    ScopaDeal,
    ScopaOptions,
    ScopaState,
    ScopaView,
)
from engine.sharing import TO_ACT, Interned, replace, shared_counts

HAND_SIZE = 3
TABLE_SIZE = 4


_PLAYS: Interned[tuple[Card, frozenset[Card]], Play] = Interned(lambda key: Play(*key), 4096)
"""One Play per card and capture: the same object wherever the same move is legal
(``Play.interned``); captures are many, so at most 4,096 are kept."""
_LAID: frozenset[Card] = frozenset()


def _kings(table: Sequence[Card]) -> int:
    return sum(1 for c in table if c.rank == "K")


class ScopaGame(Game[ScopaOptions, ScopaState, Play, ScopaView]):
    """Scopa behind the common :class:`~engine.game.Game` interface."""

    id = "scopa"
    title = "Scopa"
    deck = SCOPA_40
    options_type = ScopaOptions
    action_types = (Play,)
    view_type = ScopaView
    zero_sum = False
    default_pattern = "napoletane"

    def num_seats(self, options: ScopaOptions) -> int:
        """Scopa is for exactly two players."""
        return 2

    # -- dealing (Setup of a deal) ---------------------------------------------
    def new_state(self, options: ScopaOptions, seed: int) -> ScopaState:
        """A match whose first dealer and every shuffle derive from ``seed``."""
        dealer = derive_rng(seed, "first-dealer").randrange(2)
        return self._deal(options, seed, 0, dealer, (0, 0), ())

    def _deal(
        self,
        options: ScopaOptions,
        seed: int,
        deal_no: int,
        dealer: int,
        totals: tuple[int, int],
        history: tuple[DealScore, ...],
    ) -> ScopaState:
        """Shuffle and deal; with three or four kings on the table the same dealer redeals."""
        redeals = 0
        while True:
            order = list(self.deck.cards)
            shuffle(derive_rng(seed, "deal", deal_no, redeals), order)
            table = tuple(order[6:10])
            if _kings(table) < 3:
                break
            redeals += 1
        hands: list[tuple[Card, ...]] = [(), ()]
        hands[1 - dealer] = tuple(order[0:3])
        hands[dealer] = tuple(order[3:6])
        return ScopaState(
            options=options,
            seed=seed,
            deal_no=deal_no,
            redeals=redeals,
            dealer=dealer,
            turn=1 - dealer,
            hands=(hands[0], hands[1]),
            table=table,
            stock=tuple(order[10:]),
            piles=((), ()),
            scope=(0, 0),
            last_capturer=None,
            totals=totals,
            history=history,
            last_play=None,
            winner=None,
        )

    def from_deal(self, options: ScopaOptions, deal: ScopaDeal) -> ScopaState:
        """A match position from an explicit deal (for tests and analysis)."""
        cards = [
            *deal.hands[0],
            *deal.hands[1],
            *deal.table,
            *deal.stock,
            *deal.piles[0],
            *deal.piles[1],
        ]
        if sorted(cards) != sorted(self.deck.cards):
            raise ValueError("an explicit Scopa deal must hold each of the 40 cards once")
        if deal.dealer not in (0, 1):
            raise ValueError("dealer must be seat 0 or 1")
        if not deal.hands[0] and not deal.hands[1]:
            raise ValueError("an explicit deal needs cards in hand")
        fresh = not deal.piles[0] and not deal.piles[1] and len(deal.table) == TABLE_SIZE
        if fresh and _kings(deal.table) >= 3:
            raise ValueError("three or more kings on the opening table: the rules require a redeal")
        if len(deal.stock) % (2 * HAND_SIZE) != 0:
            raise ValueError("the stock must refill both hands exactly (a multiple of 6 cards)")
        turn = 1 - deal.dealer if deal.turn is None else deal.turn
        if not deal.hands[turn]:
            raise ValueError(f"seat {turn} is to play but holds no card")
        return ScopaState(
            options=options,
            seed=deal.seed,
            deal_no=deal.deal_no,
            redeals=0,
            dealer=deal.dealer,
            turn=turn,
            hands=(tuple(deal.hands[0]), tuple(deal.hands[1])),
            table=tuple(deal.table),
            stock=tuple(deal.stock),
            piles=(tuple(deal.piles[0]), tuple(deal.piles[1])),
            scope=deal.scope,
            last_capturer=deal.last_capturer,
            totals=deal.totals,
            history=(),
            last_play=None,
            winner=None,
        )

    def start_events(self, state: ScopaState) -> tuple[Event, ...]:
        """The opening deal: each hand to its owner, the table to everyone."""
        return self._deal_events(state)

    def _deal_events(self, state: ScopaState) -> tuple[Event, ...]:
        return (
            Event(
                "deal",
                {
                    "deal_no": state.deal_no,
                    "dealer": state.dealer,
                    "table": state.table,
                    "hand_counts": (len(state.hands[0]), len(state.hands[1])),
                    "stock_count": len(state.stock),
                },
            ),
            *(Event("hand", {"seat": s, "hand": state.hands[s]}, frozenset((s,))) for s in (0, 1)),
        )

    # -- playing (A turn) ------------------------------------------------------
    def to_act(self, state: ScopaState) -> tuple[Seat, ...]:
        """The one seat whose turn it is."""
        return () if state.turn is None else TO_ACT[state.turn]

    def legal_actions(self, state: ScopaState, seat: Seat) -> tuple[Play, ...]:
        """Every card of the hand with each capture it may (and so must) make."""
        if state.turn != seat:
            return ()
        out: list[Play] = []
        table = state.table
        pairs = valued(table)  # once for every card of the hand
        reachable = reachable_sums([v for _, v in pairs])
        plays = _PLAYS
        for card in state.hands[seat]:
            if reachable >> VALUE[card.rank] & 1:  # it captures: which groups?
                for group in capture_options(card, table, pairs):
                    out.append(plays[card, group])
            else:
                out.append(plays[card, _LAID])
        return tuple(out)

    def _apply(self, state: ScopaState, seat: Seat, action: Play) -> Transition[ScopaState]:
        card = action.card
        if card not in state.hands[seat]:
            raise IllegalAction(
                "not_in_hand",
                f"{card} is not in your hand",
                Reason(Why.NOT_IN_HAND, {"cards": (str(card),)}),
            )
        if not capture_allowed(card, action.capture, state.table):
            self._check_capture(card, action.capture, state.table)

        hand = tuple(c for c in state.hands[seat] if c != card)
        hands = (hand, state.hands[1]) if seat == 0 else (state.hands[0], hand)
        captured = action.capture
        piles, scope, last_capturer = state.piles, state.scope, state.last_capturer
        scopa = False
        if captured:
            table = tuple(c for c in state.table if c not in captured)
            taken = self.deck.sort(captured)
            pile = state.piles[seat] + taken + (card,)
            piles = (pile, piles[1]) if seat == 0 else (piles[0], pile)
            last_of_deal = not state.stock and not hands[0] and not hands[1]
            if not table and not last_of_deal:
                scopa = True
                scope = (scope[0] + 1, scope[1]) if seat == 0 else (scope[0], scope[1] + 1)
            last_capturer = seat
        else:
            taken = ()
            table = (*state.table, card)
        state = ScopaState(  # positional, in field order: a keyword call builds a dict (hot path)
            state.options,  # options
            state.seed,  # seed
            state.deal_no,  # deal_no
            state.redeals,  # redeals
            state.dealer,  # dealer
            1 - seat,  # turn
            hands,  # hands
            table,  # table
            state.stock,  # stock
            piles,  # piles
            scope,  # scope
            last_capturer,  # last_capturer
            state.totals,  # totals
            state.history,  # history
            LastPlay(seat, card, taken, scopa),  # last_play (seat, card, captured, scopa)
            None,  # winner
        )
        play = Event("play", {"seat": seat, "card": card, "captured": taken, "scopa": scopa})
        if hands[0] or hands[1]:
            return Transition(state, (play,))
        if state.stock:
            state, more = self._refill(state)
        else:
            state, more = self._end_deal(state)
        return Transition(state, (play, *more))

    @staticmethod
    def _check_capture(card: Card, capture: frozenset[Card], table: tuple[Card, ...]) -> None:
        """Raise :class:`IllegalAction` saying why ``card`` may not take ``capture`` on
        ``table`` (A turn), from the options listed; return if it may after all."""
        options = capture_options(card, table)
        if capture in options or not (options or capture):
            return
        if not options:
            raise IllegalAction(
                "bad_capture",
                f"{card} captures nothing on this table",
                Reason(Why.CAPTURES_NOTHING, {"card": str(card)}),
            )
        allowed = " or ".join(format_cards(sorted(g)) for g in options)
        params: dict[str, ReasonArg] = {
            "card": str(card),
            "choices": tuple(" ".join(codes(g)) for g in options),
        }
        if not capture:
            raise IllegalAction(
                "must_capture",
                f"{card} can capture {allowed}: capturing is mandatory",
                Reason(Why.MUST_CAPTURE, params),
            )
        raise IllegalAction(
            "bad_capture",
            f"{card} may capture only {allowed}",
            Reason(Why.MAY_CAPTURE_ONLY, params),
        )

    def _refill(self, state: ScopaState) -> tuple[ScopaState, tuple[Event, ...]]:
        """Both hands empty, stock not: three more cards each, none to the table."""
        first = 1 - state.dealer
        hands: list[tuple[Card, ...]] = [(), ()]
        hands[first] = state.stock[0:HAND_SIZE]
        hands[1 - first] = state.stock[HAND_SIZE : 2 * HAND_SIZE]
        state = replace(state, hands=(hands[0], hands[1]), stock=state.stock[2 * HAND_SIZE :])
        events = (
            Event("refill", {"stock_count": len(state.stock), "hand_counts": (3, 3)}),
            *(Event("hand", {"seat": s, "hand": state.hands[s]}, frozenset((s,))) for s in (0, 1)),
        )
        return state, events

    def _end_deal(self, state: ScopaState) -> tuple[ScopaState, tuple[Event, ...]]:
        """Leftovers to the last capturer, score the deal, check the match, deal again."""
        events: list[Event] = []
        piles = list(state.piles)
        if state.table and state.last_capturer is not None:
            piles[state.last_capturer] = piles[state.last_capturer] + state.table
            events.append(Event("leftover", {"seat": state.last_capturer, "cards": state.table}))
            state = replace(state, table=(), piles=(piles[0], piles[1]))
        score = score_deal(state.piles, state.scope)
        totals = (state.totals[0] + score.points[0], state.totals[1] + score.points[1])
        history = state.history + (score,)
        events.append(
            Event("deal_scored", {"deal_no": state.deal_no, "score": score, "totals": totals})
        )
        winner = match_winner(totals, state.options.target)
        limit = state.options.deals
        if winner is not None or (limit and len(history) >= limit):
            if winner is None and totals[0] != totals[1]:
                winner = 0 if totals[0] > totals[1] else 1
            events.append(Event("match_over", {"winner": winner, "totals": totals}))
            return replace(state, totals=totals, history=history, turn=None, winner=winner), tuple(
                events
            )
        nxt = self._deal(
            state.options, state.seed, state.deal_no + 1, 1 - state.dealer, totals, history
        )
        events.extend(self._deal_events(nxt))
        return nxt, tuple(events)

    # -- information -----------------------------------------------------------
    def view(self, state: ScopaState, seat: Seat | None) -> ScopaView:
        """Own hand, counts of hidden cards, everything public; legal plays on one's turn."""
        return ScopaView(  # positional, in field order: a keyword call builds a dict (hot path)
            state.options,  # options
            seat,  # seat
            self.to_act(state),  # to_act
            state.dealer,  # dealer
            state.deal_no,  # deal_no
            state.hands[seat] if seat is not None else (),  # hand
            shared_counts((len(state.hands[0]), len(state.hands[1]))),  # hand_counts
            state.table,  # table
            len(state.stock),  # stock_count
            state.piles,  # piles
            state.scope,  # scope
            state.last_capturer,  # last_capturer
            state.totals,  # totals
            state.history,  # history
            state.last_play,  # last_play
            self.is_over(state),  # over
            state.winner,  # winner
            self.legal_actions(state, seat) if seat is not None else (),  # legal
        )

    def is_over(self, state: ScopaState) -> bool:
        """The match is over once a deal ends with a winner, or with the ``deals`` limit."""
        if state.winner is not None:
            return True
        limit = state.options.deals
        return bool(limit) and len(state.history) >= limit

    def result(self, state: ScopaState) -> Result | None:
        """Match totals per seat and the winner (none: a drawn match of limited ``deals``)."""
        if not self.is_over(state):
            return None
        return Result(
            scores=state.totals,
            winners=frozenset(() if state.winner is None else (state.winner,)),
            summary={"deals": len(state.history)},
        )

    def contests(self, state: ScopaState) -> tuple[Contest, ...]:
        """One contest a match, one player against the other (drawn only with ``deals``)."""
        if not self.is_over(state):
            return ()
        won = None if state.winner is None else state.winner == 0
        return (two_sides(frozenset((0,)), frozenset((1,)), won),)

    def sample_world(self, view: ScopaView, rng: random.Random) -> ScopaState:
        """Place the unseen cards (other hand(s), stock) at random, with a fresh seed."""
        seen = set(view.hand) | set(view.table) | set(view.piles[0]) | set(view.piles[1])
        unseen = [c for c in self.deck.cards if c not in seen]
        shuffle(rng, unseen)
        hands: list[tuple[Card, ...]] = [(), ()]
        for s in (0, 1):
            if s == view.seat:
                hands[s] = view.hand
            else:
                n = view.hand_counts[s]
                hands[s], unseen = tuple(unseen[:n]), unseen[n:]
        if view.over:
            turn = None
        else:
            turn = view.to_act[0] if view.to_act else None
        return ScopaState(
            options=view.options,
            seed=new_seed(rng),
            deal_no=view.deal_no,
            redeals=0,
            dealer=view.dealer,
            turn=turn,
            hands=(hands[0], hands[1]),
            table=view.table,
            stock=tuple(unseen),
            piles=view.piles,
            scope=view.scope,
            last_capturer=view.last_capturer,
            totals=view.totals,
            history=view.history,
            last_play=view.last_play,
            winner=view.winner,
        )

    def redeal_hidden(self, state: ScopaState, seat: Seat | None, rng: random.Random) -> ScopaState:
        """Shuffle every card ``seat`` cannot see (other hands, the stock) and the seed."""
        hidden_seats = [s for s in (0, 1) if s != seat]
        pool = [c for s in hidden_seats for c in state.hands[s]] + list(state.stock)
        shuffle(rng, pool)
        hands = list(state.hands)
        for s in hidden_seats:
            n = len(state.hands[s])
            hands[s], pool = tuple(pool[:n]), pool[n:]
        return replace(state, hands=(hands[0], hands[1]), stock=tuple(pool), seed=new_seed(rng))

    def card_zones(self, state: ScopaState) -> Mapping[str, Sequence[Card]]:
        """Hands, table, stock and both piles: all 40 cards of the deal."""
        return {
            "hand0": state.hands[0],
            "hand1": state.hands[1],
            "table": state.table,
            "stock": state.stock,
            "pile0": state.piles[0],
            "pile1": state.piles[1],
        }
