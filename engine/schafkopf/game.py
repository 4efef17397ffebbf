"""Schafkopf for four players, a series of deals with running totals (rules/schafkopf.md).

Readings of the rules file made here:

* A passed-out deal is one of the series' deals (the deal passes to the left
  after it, so ``deals=4`` is one full round of dealers).
* A Sie ends the bidding at once: nothing ranks above it, so the seats still
  to speak could only pass.
* "A Sie counts 8": a Sie is scored with eight Laufende at 4 units each,
  20 + 32 = 52, the declarer gaining three times that.
* When a Tout is lost before the last trick, the unplayed cards stay hidden;
  only the settlement (with the Laufende) becomes public.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import GERMAN_32, Card
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
from engine.reasons import Reason, Why
from engine.rng import derive_rng, new_seed, shuffle
from engine.schafkopf.hidden import Public, deal_hidden, played_by
from engine.schafkopf.rules import (
    CARD_POINTS,
    CONTRACT_RANK,
    CONTRACTS,
    TOUTS,
    ZEROS,
    add,
    announcements,
    eligibility_error,
    legal_plays,
    mode_of,
    passed_out_record,
    play_error,
    score_deal,
    suit_error,
    trick_winner,
)
from engine.schafkopf.state import (
    Action,
    Announce,
    Bid,
    Contract,
    DealRecord,
    Four,
    Hand,
    Hands,
    Pass,
    PlayCard,
    SchafkopfDeal,
    SchafkopfOptions,
    SchafkopfState,
    SchafkopfView,
    Trick,
)
from engine.sharing import TO_ACT, Interned, replace, shared_counts

SEATS = 4
HAND_SIZE = 8
_ORDER = {c: i for i, c in enumerate(GERMAN_32.cards)}
_PASS = Pass()
_PLAY_CARD = Interned(PlayCard, len(GERMAN_32.cards))
"""One PlayCard per card: the same object in every legal move list (``PlayCard.interned``)."""

SchafkopfAction = Action


def _sorted(cards: Sequence[Card]) -> Hand:
    return tuple(sorted(cards, key=_ORDER.__getitem__))


def _four_hands(hands: Sequence[Hand]) -> Hands:
    return (hands[0], hands[1], hands[2], hands[3])


class SchafkopfGame(Game[SchafkopfOptions, SchafkopfState, SchafkopfAction, SchafkopfView]):
    """Schafkopf behind the common :class:`~engine.game.Game` interface."""

    id = "schafkopf"
    title = "Schafkopf"
    deck = GERMAN_32
    options_type = SchafkopfOptions
    action_types = (Announce, Pass, PlayCard)
    view_type = SchafkopfView
    zero_sum = True
    default_pattern = "bavarian"

    def num_seats(self, options: SchafkopfOptions) -> int:
        """Schafkopf is for exactly four players."""
        return SEATS

    # -- dealing (Deal) --------------------------------------------------------
    def new_state(self, options: SchafkopfOptions, seed: int) -> SchafkopfState:
        """A series whose first dealer and every shuffle derive from ``seed``."""
        dealer = derive_rng(seed, "first-dealer").randrange(SEATS)
        return self._deal(options, seed, 0, dealer, ZEROS, ())

    def _deal(
        self,
        options: SchafkopfOptions,
        seed: int,
        deal_no: int,
        dealer: int,
        totals: Four,
        history: tuple[DealRecord, ...],
    ) -> SchafkopfState:
        """Shuffle and deal eight cards each in two rounds of four, from the dealer's left."""
        order = list(self.deck.cards)
        shuffle(derive_rng(seed, "deal", deal_no), order)
        hands: list[list[Card]] = [[], [], [], []]
        pos = 0
        for _round in range(2):
            for k in range(1, SEATS + 1):
                hands[(dealer + k) % SEATS].extend(order[pos : pos + 4])
                pos += 4
        dealt = _four_hands([_sorted(h) for h in hands])
        return self._start(options, seed, deal_no, dealer, dealt, totals, history)

    def _start(
        self,
        options: SchafkopfOptions,
        seed: int,
        deal_no: int,
        dealer: int,
        dealt: Hands,
        totals: Four,
        history: tuple[DealRecord, ...],
    ) -> SchafkopfState:
        first = (dealer + 1) % SEATS
        return SchafkopfState(
            options=options,
            seed=seed,
            deal_no=deal_no,
            dealer=dealer,
            phase="bidding",
            turn=first,
            hands=dealt,
            dealt=dealt,
            bids=(),
            contract=None,
            partner=None,
            partner_known=None,
            leader=first,
            trick=(),
            tricks=(),
            points=ZEROS,
            totals=totals,
            history=history,
        )

    def from_deal(self, options: SchafkopfOptions, deal: SchafkopfDeal) -> SchafkopfState:
        """A deal from explicit hands, before the bidding (for tests and analysis)."""
        if len(deal.hands) != SEATS or any(len(h) != HAND_SIZE for h in deal.hands):
            raise ValueError("an explicit Schafkopf deal has four hands of eight cards")
        cards = [c for h in deal.hands for c in h]
        if sorted(cards) != sorted(self.deck.cards):
            raise ValueError("an explicit Schafkopf deal must hold each of the 32 cards once")
        if deal.dealer not in range(SEATS):
            raise ValueError("dealer must be a seat from 0 to 3")
        if sum(deal.totals) != 0:
            raise ValueError("running totals of a zero-sum series must add up to 0")
        if not 0 <= deal.deal_no < options.deals:
            raise ValueError("deal_no must be below the number of deals of the series")
        dealt = _four_hands([tuple(h) for h in deal.hands])
        return self._start(options, deal.seed, deal.deal_no, deal.dealer, dealt, deal.totals, ())

    def start_events(self, state: SchafkopfState) -> tuple[Event, ...]:
        """The opening deal: the dealer to everyone, each hand to its owner."""
        return self._deal_events(state)

    def _deal_events(self, state: SchafkopfState) -> tuple[Event, ...]:
        return (
            Event("deal", {"deal_no": state.deal_no, "dealer": state.dealer}),
            *(
                Event("hand", {"seat": s, "hand": state.hands[s]}, frozenset((s,)))
                for s in range(SEATS)
            ),
        )

    # -- playing ---------------------------------------------------------------
    def to_act(self, state: SchafkopfState) -> tuple[Seat, ...]:
        """The one seat whose turn it is."""
        return () if state.turn is None else TO_ACT[state.turn]

    def legal_actions(self, state: SchafkopfState, seat: Seat) -> tuple[SchafkopfAction, ...]:
        """Pass or a higher eligible announcement while bidding; the playable cards in play."""
        if state.turn != seat:
            return ()
        if state.phase == "bidding":
            return (_PASS, *announcements(state.hands[seat], self._highest(state)))
        return tuple(map(_PLAY_CARD.__getitem__, self._plays(state, seat)))

    @staticmethod
    def _highest(state: SchafkopfState) -> int:
        """The rank of the highest announcement so far (-1: none)."""
        best = -1
        for bid in state.bids:
            if bid.contract is not None:
                best = max(best, CONTRACT_RANK[bid.contract])
        return best

    @staticmethod
    def _active_ace(state: SchafkopfState, hand: Hand) -> Card | None:
        """The called ace if ``hand`` holds it and its rules are in force."""
        contract = state.contract
        if contract is None or contract.kind != "rufer" or state.partner_known is not None:
            return None
        ace = Card("A", contract.suit or "")
        return ace if ace in hand else None

    def _plays(self, state: SchafkopfState, seat: Seat) -> tuple[Card, ...]:
        contract = state.contract
        assert contract is not None
        hand = state.hands[seat]
        mode = mode_of(contract.kind, contract.suit)
        return legal_plays(hand, state.trick, mode, self._active_ace(state, hand))

    def _apply(
        self, state: SchafkopfState, seat: Seat, action: SchafkopfAction
    ) -> Transition[SchafkopfState]:
        if isinstance(action, PlayCard):
            if state.phase != "play":
                raise IllegalAction("not_playing", "cards are played only after the bidding")
            return self._play(state, seat, action.card)
        if state.phase != "bidding":
            raise IllegalAction("not_bidding", "the bidding is over")
        return self._bid(state, seat, action)

    # -- bidding (Contracts and bidding) --------------------------------------
    def _bid(
        self, state: SchafkopfState, seat: Seat, action: Announce | Pass
    ) -> Transition[SchafkopfState]:
        if isinstance(action, Announce):
            if action.contract not in CONTRACT_RANK:
                raise IllegalAction(
                    "bad_contract",
                    f"{action.contract!r} is not one of {', '.join(CONTRACTS)}",
                    Reason(Why.BAD_CONTRACT, {"contract": str(action.contract)}),
                )
            wrong = suit_error(action.contract, action.suit)
            if wrong is not None:
                raise IllegalAction("bad_suit", *wrong)
            highest = self._highest(state)
            if CONTRACT_RANK[action.contract] <= highest:
                raise IllegalAction(
                    "not_higher",
                    f"{action.contract} does not rank above {CONTRACTS[highest]}: "
                    "an announcement must be strictly higher",
                    Reason(
                        Why.NOT_HIGHER, {"contract": action.contract, "above": CONTRACTS[highest]}
                    ),
                )
            wrong = eligibility_error(state.hands[seat], action.contract, action.suit)
            if wrong is not None:
                raise IllegalAction("not_eligible", *wrong)
            bid = Bid(seat, action.contract, action.suit)
        else:
            bid = Bid(seat, None, None)
        bids = state.bids + (bid,)
        events: list[Event] = [
            Event("bid", {"seat": seat, "contract": bid.contract, "suit": bid.suit})
        ]
        if bid.contract == "sie":  # nothing can rank above it: the declarer wins at once
            contract = Contract("sie", None, seat)
            events.append(Event("contract", {"declarer": seat, "contract": "sie", "suit": None}))
            state = replace(state, bids=bids, contract=contract, turn=None)
            return self._end_deal(state, events)
        if len(bids) < SEATS:
            return Transition(_after_bid(state, bids, (seat + 1) % SEATS), tuple(events))
        announced = [b for b in bids if b.contract is not None]
        if not announced:
            events.append(Event("passed_out", {"deal_no": state.deal_no}))
            state = replace(state, bids=bids, turn=None)
            record = passed_out_record(state.deal_no, state.dealer)
            return self._next_deal(state, record, events)
        top = announced[-1]  # announcements rise strictly: the last one is the highest
        assert top.contract is not None
        contract = Contract(top.contract, top.suit, top.seat)
        partner = None
        ace = contract.called_ace
        if ace is not None:
            partner = next(s for s in range(SEATS) if ace in state.hands[s])
        events.append(
            Event(
                "contract",
                {"declarer": top.seat, "contract": top.contract, "suit": top.suit},
            )
        )
        first = (state.dealer + 1) % SEATS
        state = replace(
            state,
            bids=bids,
            contract=contract,
            partner=partner,
            phase="play",
            turn=first,
            leader=first,
        )
        return Transition(state, tuple(events))

    # -- play (A trick; The called ace) ----------------------------------------
    def _play(self, state: SchafkopfState, seat: Seat, card: Card) -> Transition[SchafkopfState]:
        hand = state.hands[seat]
        try:
            at = hand.index(card)
        except ValueError:
            raise IllegalAction(
                "not_in_hand",
                f"{card} is not in your hand",
                Reason(Why.NOT_IN_HAND, {"cards": (str(card),)}),
            ) from None
        contract = state.contract
        assert contract is not None
        mode = mode_of(contract.kind, contract.suit)
        ace = self._active_ace(state, hand)
        if card not in legal_plays(hand, state.trick, mode, ace):
            raise IllegalAction(*play_error(hand, state.trick, mode, ace, card))
        hands = list(state.hands)
        hands[seat] = hand[:at] + hand[at + 1 :]  # a hand holds each card once
        trick = state.trick + (card,)
        events: list[Event] = [Event("play", {"seat": seat, "card": card})]
        partner_known = state.partner_known
        if contract.kind == "rufer" and partner_known is None and card == contract.called_ace:
            partner_known = seat
            events.append(Event("partner_known", {"seat": seat, "how": "called_ace_played"}))
        if len(trick) < SEATS:
            state = _in_play(
                state,
                _four_hands(hands),
                trick,
                (seat + 1) % SEATS,
                partner_known,
                state.leader,
                state.tricks,
                state.points,
            )
            return Transition(state, tuple(events))
        leader = state.leader
        winner = (leader + trick_winner(trick, mode)) % SEATS
        points = sum(CARD_POINTS[c] for c in trick)
        done = Trick(leader, (trick[0], trick[1], trick[2], trick[3]), winner, points)
        events.append(
            Event("trick", {"leader": leader, "cards": trick, "winner": winner, "points": points})
        )
        if (
            contract.kind == "rufer"
            and partner_known is None
            and mode.eff[trick[0]] == contract.suit
        ):  # the called suit was led and the ace did not fall: the leader ran away
            partner_known = leader
            events.append(Event("partner_known", {"seat": leader, "how": "ran_away"}))
        won = list(state.points)
        won[winner] += points
        tricks = state.tricks + (done,)
        state = _in_play(
            state,
            _four_hands(hands),
            (),
            winner,
            partner_known,
            winner,
            tricks,
            (won[0], won[1], won[2], won[3]),
        )
        tout_lost = contract.kind in TOUTS and winner != contract.declarer
        if tout_lost or len(tricks) == HAND_SIZE:
            return self._end_deal(replace(state, turn=None), events)
        return Transition(state, tuple(events))

    # -- end of a deal (End of play; Scoring; The table) -----------------------
    def _end_deal(self, state: SchafkopfState, events: list[Event]) -> Transition[SchafkopfState]:
        contract = state.contract
        assert contract is not None
        record = score_deal(
            state.deal_no, state.dealer, contract, state.partner, state.dealt, state.tricks
        )
        return self._next_deal(state, record, events)

    def _next_deal(
        self, state: SchafkopfState, record: DealRecord, events: list[Event]
    ) -> Transition[SchafkopfState]:
        totals = add(state.totals, record.settlement)
        history = state.history + (record,)
        events.append(Event("deal_scored", {"record": record, "totals": totals}))
        if state.deal_no + 1 >= state.options.deals:
            events.append(Event("game_over", {"totals": totals}))
            final = replace(state, phase="over", turn=None, totals=totals, history=history)
            return Transition(final, tuple(events))
        nxt = self._deal(
            state.options,
            state.seed,
            state.deal_no + 1,
            (state.dealer + 1) % SEATS,
            totals,
            history,
        )
        events.extend(self._deal_events(nxt))
        return Transition(nxt, tuple(events))

    # -- information -----------------------------------------------------------
    _shared: tuple[SchafkopfState, tuple[Seat, ...], Four, bool] | None = None
    """The state viewed last and what every seat's view of it shares (the seats to act,
    the hand counts, whether the series is over): worked out once per state, not once
    per seat, as a table views each new state for every seat in turn."""

    def view(self, state: SchafkopfState, seat: Seat | None) -> SchafkopfView:
        """Own hand, counts of hidden cards, everything public; legal actions on one's turn."""
        h = state.hands
        shared = self._shared
        if shared is None or shared[0] is not state:  # (one tuple, replaced whole: thread-safe)
            counts: Four = shared_counts((len(h[0]), len(h[1]), len(h[2]), len(h[3])))
            shared = self._shared = (state, self.to_act(state), counts, state.phase == "over")
        return SchafkopfView(  # positional, in field order: a keyword call builds a dict (hot path)
            state.options,  # options
            seat,  # seat
            shared[1],  # to_act
            state.phase,  # phase
            state.deal_no,  # deal_no
            state.dealer,  # dealer
            h[seat] if seat is not None else (),  # hand
            shared[2],  # hand_counts
            state.bids,  # bids
            state.contract,  # contract
            state.partner_known,  # partner
            state.leader,  # leader
            state.trick,  # trick
            state.tricks,  # tricks
            state.points,  # points
            state.totals,  # totals
            state.history,  # history
            shared[3],  # over
            self.legal_actions(state, seat) if seat is not None else (),  # legal
        )

    def is_over(self, state: SchafkopfState) -> bool:
        """The series is over after its last deal."""
        return state.phase == "over"

    def result(self, state: SchafkopfState) -> Result | None:
        """Running totals per seat (zero-sum), the leaders, and per-series figures."""
        if state.phase != "over":
            return None
        totals = state.totals
        best = max(totals)
        winners = frozenset(s for s in range(SEATS) if totals[s] == best)
        if len(winners) == SEATS:
            winners = frozenset()
        return Result(scores=totals, winners=winners, summary=summarize(state.history))

    def contests(self, state: SchafkopfState) -> tuple[Contest, ...]:
        """One contest a played deal: the declaring side (the declarer, and the called
        partner in a Rufer) against the rest; a deal thrown in (all passed) has none.
        The declaring side's role is its contract: each contract has its own odds."""
        if state.phase != "over":
            return ()
        out: list[Contest] = []
        for deal in state.history:
            if deal.contract is None or deal.declarer is None:
                continue
            side = frozenset(s for s in (deal.declarer, deal.partner) if s is not None)
            rest = frozenset(range(SEATS)) - side
            out.append(two_sides(side, rest, deal.declarer_won, deal.deal_no, deal.contract))
        return tuple(out)

    def sample_world(self, view: SchafkopfView, rng: random.Random) -> SchafkopfState:
        """Place the unseen cards by the hand counts, respecting the public facts."""
        pub = Public(view.bids, view.contract, view.partner, view.leader, view.trick, view.tricks)
        played = played_by(pub)
        seen = set(view.hand) | {c for cs in played for c in cs}
        pool = [c for c in self.deck.cards if c not in seen]
        counts = {s: view.hand_counts[s] for s in range(SEATS) if s != view.seat}
        new, _ = deal_hidden(pub, pool, counts, rng)
        hands = [view.hand if s == view.seat else new[s] for s in range(SEATS)]
        return self._rebuild(view, hands, played, new_seed(rng))

    def _rebuild(
        self, view: SchafkopfView, hands: list[Hand], played: list[list[Card]], seed: int
    ) -> SchafkopfState:
        dealt = _four_hands([_sorted([*played[s], *hands[s]]) for s in range(SEATS)])
        return SchafkopfState(
            options=view.options,
            seed=seed,
            deal_no=view.deal_no,
            dealer=view.dealer,
            phase=view.phase,
            turn=view.to_act[0] if view.to_act else None,
            hands=_four_hands(hands),
            dealt=dealt,
            bids=view.bids,
            contract=view.contract,
            partner=_ace_holder(view.contract, dealt),
            partner_known=view.partner,
            leader=view.leader,
            trick=view.trick,
            tricks=view.tricks,
            points=view.points,
            totals=view.totals,
            history=view.history,
        )

    def redeal_hidden(
        self, state: SchafkopfState, seat: Seat | None, rng: random.Random
    ) -> SchafkopfState:
        """Redistribute every card ``seat`` cannot see among the other hands, and the seed.

        Counts, played cards and every public fact (voids, eligibility of the
        announcements, the called-ace rules) are kept; the called ace moves
        freely between the seats that may hold it.  A finished series keeps its
        hands: its last record was scored from them.
        """
        if state.phase == "over":
            return replace(state, seed=new_seed(rng))
        pub = Public(
            state.bids,
            state.contract,
            state.partner_known,
            state.leader,
            state.trick,
            state.tricks,
        )
        played = played_by(pub)
        counts = {s: len(state.hands[s]) for s in range(SEATS) if s != seat}
        pool = [c for s in counts for c in state.hands[s]]
        new, ok = deal_hidden(pub, pool, counts, rng)
        if not ok:  # keep the true (always consistent) placement
            new = {s: state.hands[s] for s in counts}
        hands = [state.hands[s] if s == seat else new[s] for s in range(SEATS)]
        dealt = _four_hands(
            [
                state.dealt[s] if s == seat else _sorted([*played[s], *hands[s]])
                for s in range(SEATS)
            ]
        )
        return replace(
            state,
            hands=_four_hands(hands),
            dealt=dealt,
            partner=_ace_holder(state.contract, dealt),
            seed=new_seed(rng),
        )

    def card_zones(self, state: SchafkopfState) -> Mapping[str, Sequence[Card]]:
        """The four hands and the cards played in this deal: all 32 cards."""
        played = [c for t in state.tricks for c in t.cards] + list(state.trick)
        return {
            "hand0": state.hands[0],
            "hand1": state.hands[1],
            "hand2": state.hands[2],
            "hand3": state.hands[3],
            "played": played,
        }


def _after_bid(state: SchafkopfState, bids: tuple[Bid, ...], turn: int) -> SchafkopfState:
    """``state`` after a word of the bidding that did not end it (hot path)."""
    return SchafkopfState(
        state.options,
        state.seed,
        state.deal_no,
        state.dealer,
        state.phase,
        turn,
        state.hands,
        state.dealt,
        bids,
        state.contract,
        state.partner,
        state.partner_known,
        state.leader,
        state.trick,
        state.tricks,
        state.points,
        state.totals,
        state.history,
    )


def _in_play(
    state: SchafkopfState,
    hands: Hands,
    trick: tuple[Card, ...],
    turn: int,
    partner_known: int | None,
    leader: int,
    tricks: tuple[Trick, ...],
    points: Four,
) -> SchafkopfState:
    """``state`` after a card was played (a direct constructor call: the hot path)."""
    return SchafkopfState(
        state.options,
        state.seed,
        state.deal_no,
        state.dealer,
        state.phase,
        turn,
        hands,
        state.dealt,
        state.bids,
        state.contract,
        state.partner,
        partner_known,
        leader,
        trick,
        tricks,
        points,
        state.totals,
        state.history,
    )


def _ace_holder(contract: Contract | None, dealt: Hands) -> int | None:
    ace = contract.called_ace if contract is not None else None
    if ace is None:
        return None
    return next(s for s in range(SEATS) if ace in dealt[s])


def summarize(history: Sequence[DealRecord]) -> dict[str, Any]:
    """Flat per-series figures for the self-play report.

    Counts per contract, declarer wins and losses (their averages give the
    overall declarer win rate), Schneider / Schwarz / Laufende counts and the
    average value of a played deal.
    """
    played = [r for r in history if r.contract is not None]
    out: dict[str, Any] = {
        "deals": len(history),
        "passed_out": len(history) - len(played),
        "contracts_played": len(played),
    }
    for kind in CONTRACTS:
        out[f"contract_{kind}"] = sum(1 for r in played if r.contract == kind)
    out["declarer_wins"] = sum(1 for r in played if r.declarer_won)
    out["declarer_losses"] = len(played) - out["declarer_wins"]
    if played:  # absent when nobody played: the report averages it over the rest
        out["declarer_win_rate"] = out["declarer_wins"] / len(played)
    out["schneider"] = sum(1 for r in played if r.schneider)
    out["schwarz"] = sum(1 for r in played if r.schwarz)
    out["laufende_deals"] = sum(1 for r in played if r.laufende)
    out["average_value"] = sum(r.value for r in played) / len(played) if played else 0.0
    return out
