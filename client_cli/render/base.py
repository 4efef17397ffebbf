"""Text rendering of any game's plain views, actions, events and results.

The server sends views, actions and events as plain data shaped by the
engine.  :class:`Renderer` turns them into lines a person reads in a
terminal; it knows only the keys every game shares (``to_act``, ``hand``,
``table``, ``hand_counts``, ``legal``, ``options.pattern``) and prints the
rest generically, so a game without a renderer of its own still plays.
Per-game subclasses (``client_cli.render.<game>``) make it read well.

Cards are named per the table's pattern in the player's language
(:mod:`client_cli.lang`, the page's own names), e.g. ``7D`` is "Sette di
Denari" in Italian with Napoletane cards; the short code is kept beside the
name so it can be typed, the same in every language.  Every other word comes
from the language too (``self.t(key)``, ``self.term(key)``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from client_cli.lang import Language, language
from client_cli.style import Style, columns, visible_len, wrap
from engine.cards import PATTERNS, CardError, Pattern
from protocol.models import SeatInfo, TableInfo
from protocol.server_messages import ChatLine

_SKIP_VIEW_KEYS = frozenset({"legal", "options", "seat", "to_act", "history"})
_CARD_KEYS = frozenset({"card", "cards", "capture", "captured", "hand", "table", "bottom", "trick"})


@dataclass
class Seats:
    """Who sits where, as a person reads it: ``you`` for the own seat."""

    me: int | None = None
    names: dict[int, str] = field(default_factory=dict)
    kinds: dict[int, str] = field(default_factory=dict)
    lang: Language = field(default_factory=language)

    def update(self, info: TableInfo) -> list[str]:
        """Take the seats of ``info``; lines saying what changed (empty the first time)."""
        changes: list[str] = []
        first = not self.names
        for seat in info.seats:
            name, kind = seat_name(seat, levels=False, lang=self.lang), seat.kind
            old = self.names.get(seat.seat)
            if not first and old != name:
                changes.append(self.lang.t("seat.changed", n=seat.seat, name=name))
            self.names[seat.seat] = name
            self.kinds[seat.seat] = kind
        return changes

    def __call__(self, seat: int | None) -> str:
        if seat is None:
            return self.lang.t("seat.nobody")
        if seat == self.me:
            return self.lang.t("seat.you")
        return self.names.get(seat, self.lang.t("seat.numbered", n=seat))

    def title(self, seat: int | None) -> str:
        """For the start of a sentence: ``You``; a player's name as they wrote it (the
        same spelling everywhere on the screen)."""
        text = self(seat)
        if seat is None or seat == self.me:
            return text[:1].upper() + text[1:]
        return text


def chat_name(line: ChatLine, lang: Language | None = None) -> str:
    """Who said a chat line: the name, marked when a bot account said it."""
    return (lang or language()).t("seat.bot", name=line.name) if line.bot else line.name


def seat_name(seat: SeatInfo, *, levels: bool = True, lang: Language | None = None) -> str:
    """A seat as the lobby shows it: the player's name, or AI (with its level)."""
    lang = lang or language()
    if seat.kind == "empty":
        return lang.t("seat.empty", n=seat.seat)
    if seat.kind == "ai":
        if seat.level and levels:
            return lang.t("seat.ai_level", n=seat.seat, level=lang.level(seat.level))
        return lang.t("seat.ai", n=seat.seat)
    name = seat.name or lang.t("seat.player", n=seat.seat)
    if seat.bot:  # a bot account: always shown as one (docs/protocol.md, "Bots")
        name = lang.t("seat.bot", name=name)
    if seat.ai_covering:
        return lang.t("seat.away_ai", name=name)
    if not seat.connected:
        return lang.t("seat.away", name=name)
    return name


class Renderer:
    """Generic rendering; subclasses override the ``game_*`` hooks for one game."""

    game = ""

    exact_names_move = False
    """Whether the cards of a move name it alone (typing a subset of a bigger move's
    cards then picks the move made of exactly those); not so where a played card
    may also capture (Scopa, Cicera): there the other moves are offered."""

    def __init__(
        self, seats: Seats | None = None, pattern: str | None = None, lang: Language | None = None
    ) -> None:
        self.lang: Language = lang or (seats.lang if seats is not None else language())
        self.seats = seats if seats is not None else Seats(lang=self.lang)
        self.pattern: Pattern | None = PATTERNS.get(pattern or "")
        self.style = Style()
        self.width = 100
        """Columns to lay lines out in (the terminal's width)."""

    # -- words -----------------------------------------------------------------------
    def t(self, key: str, **args: Any) -> str:
        """The terminal string ``key`` in the player's language."""
        return self.lang.t(key, **args)

    def term(self, key: str, default: str | None = None) -> str:
        """A term of this game (``terms.<game>.<key>``) in the player's language."""
        return self.lang.term(self.game, key, default)

    def said(self, key: str, seat: int | None, **args: Any) -> str:
        """``key.you`` when ``seat`` is the player's (``You play …``), else ``key.other``
        with ``{who}`` (``Ann plays …``): languages conjugate differently."""
        if seat is not None and seat == self.seats.me:
            return self.t(key + ".you", **args)
        return self.t(key + ".other", who=self.seats.title(seat), **args)

    # -- cards ---------------------------------------------------------------
    def set_pattern(self, options: Mapping[str, Any] | None) -> None:
        """Take the card pattern from a view's or table's game options."""
        if options and isinstance(options.get("pattern"), str):
            self.pattern = PATTERNS.get(options["pattern"], self.pattern)

    def card_name(self, code: str) -> str | None:
        """The card's name in the table's pattern, or None when it is not a card."""
        if self.pattern is None or not isinstance(code, str) or len(code) != 2:
            return None
        try:
            card = self.pattern.family.parse(code)
        except CardError:
            return None
        return self.lang.card_name(card.text, self.pattern.id)

    def card(self, code: str) -> str:
        """``Seven of Denari (7D)``; the bare code when the pattern cannot name it."""
        name = self.card_name(code)
        return f"{name} ({self.code(code)})" if name else self.code(code)

    def code(self, code: str) -> str:
        """The card's code, coloured by its suit when colour is on."""
        if not self.style.colour or self.pattern is None or not isinstance(code, str):
            return str(code)
        suit = self.pattern.suit_names.get(code[1:]) if len(code) == 2 else None
        return self.style.paint(code, self.style.suit_colour(suit or ""))

    def suit_of(self, code: str, view: Mapping[str, Any] | None = None) -> str:
        """The group a card is sorted into in a hand (its printed suit; games may differ)."""
        return code[1:]

    def rank_key(self, code: str, view: Mapping[str, Any] | None = None) -> int:
        """Where a card stands in its group (lower first): the deck's rank order."""
        ranks = self.pattern.family.ranks if self.pattern is not None else ""
        return ranks.find(code[:1])

    def suit_order(self, view: Mapping[str, Any] | None = None) -> list[str]:
        """The order of the groups of a hand."""
        return list(self.pattern.suit_names) if self.pattern is not None else []

    def group_name(self, group: str, view: Mapping[str, Any] | None = None) -> str:
        """A group's label: the suit's name (its symbol in colour, French cards)."""
        if self.pattern is None:
            return group
        name = self.lang.suit_name(group, self.pattern.id)
        colour = self.style.suit_colour(str(self.pattern.suit_names.get(group, "")))
        return self.style.suit_label(group, name, self.pattern.family.name == "french", colour)

    def sorted_groups(
        self, codes: Iterable[str], view: Mapping[str, Any] | None = None
    ) -> list[tuple[str, list[str]]]:
        """A hand as players sort it: grouped (by suit), each group in rank order."""
        order = self.suit_order(view)
        groups: dict[str, list[str]] = {}
        for code in codes:
            groups.setdefault(self.suit_of(str(code), view), []).append(str(code))
        keys = sorted(groups, key=lambda g: (order.index(g) if g in order else len(order), g))
        return [(g, sorted(groups[g], key=lambda c: self.rank_key(c, view))) for g in keys]

    def hand_lines(
        self, codes: Sequence[str], view: Mapping[str, Any] | None = None, head: str = ""
    ) -> list[str]:
        """``Your hand (8): Eichel AE TE  Gras 9G …``, wrapped between cards."""
        items: list[str] = []
        for group, cards in self.sorted_groups(codes, view):
            label = self.group_name(group, view)
            for i, code in enumerate(cards):
                if i == 0 and label:
                    label = f" {label}" if items else label  # two spaces between groups
                    items.append(f"{label} {self.code(code)}")
                else:
                    items.append(self.code(code))
        return wrap(head or self.t("view.hand", n=len(codes)), items, self.width)

    def dealt_lines(self, seat: int | None, codes: Sequence[str]) -> list[str]:
        """``You get: …`` for a ``hand`` event, sorted and wrapped like the hand."""
        return self.hand_lines(codes, None, self.said("event.get", seat))

    def cards(self, codes: Iterable[str], sep: str = ", ") -> str:
        """Several cards, named."""
        items = [self.card(c) for c in codes]
        return sep.join(items) if items else self.t("view.none")

    def codes(self, codes: Iterable[str]) -> str:
        """Several cards as short codes."""
        items = [str(c) for c in codes]
        return " ".join(items) if items else self.t("view.none")

    # -- refusals ------------------------------------------------------------------
    def reason(self, key: str, params: Mapping[str, Any]) -> str | None:
        """Why the rules refused a move (:mod:`engine.reasons`) in the player's language,
        its cards and suits named as this screen names them; None when the language has
        no sentence for ``key`` or the parameters do not fill it (a newer server)."""
        text = self.lang.reason(key)
        if text is None:
            return None
        args = {name: self.reason_arg(name, value) for name, value in params.items()}
        try:
            return text.format(**args)
        except (KeyError, IndexError, ValueError):
            return None

    def reason_arg(self, name: str, value: Any) -> str:
        """One parameter of a reason, by the kind its name tells (``engine.reasons``)."""
        if name in ("card", "called_ace") and isinstance(value, str):
            return self.card(value)
        if name in ("cards", "last_cards") and isinstance(value, list):
            return self.cards(str(v) for v in value)
        if name == "choices" and isinstance(value, list):
            groups = (" + ".join(self.card(c) for c in str(g).split()) for g in value)
            return self.t("view.or").join(groups)
        if name == "suit" and isinstance(value, str):
            return self.suit_name(value)
        return str(value)

    def suit_name(self, suit: Any) -> str:
        """A suit as the hand's groups name it, in words (no symbol: it stands in a
        sentence); empty for no suit."""
        if not suit:
            return ""
        if self.pattern is not None:
            return self.lang.suit_name(str(suit), self.pattern.id)
        return str(suit)

    # -- views -----------------------------------------------------------------
    def view_lines(self, view: Mapping[str, Any]) -> list[str]:
        """The whole picture: whose turn, then the game's own lines."""
        self.set_pattern(view.get("options"))
        return [self.turn_line(view), *self.game_view(view)]

    def turn_line(self, view: Mapping[str, Any]) -> str:
        """Whose turn it is."""
        to_act = list(view.get("to_act") or [])
        if not to_act:
            return self.t("turn.nobody")
        if self.seats.me is not None and self.seats.me in to_act:
            return self.t("turn.yours")
        who = self.t("view.and").join(self.seats(s) for s in to_act)
        return self.t("turn.waiting", who=who)

    def game_view(self, view: Mapping[str, Any]) -> list[str]:
        """The game's own lines; generic: every field but the legal moves."""
        lines: list[str] = []
        if "table" in view:
            lines.append(self.t("view.table", cards=self.cards(view["table"])))
        if "hand" in view and self.seats.me is not None:
            lines.extend(self.hand_lines(view["hand"], view))
        if "hand_counts" in view:
            lines.append(self.t("view.hand_counts", counts=self.per_seat(view["hand_counts"])))
        for key, value in view.items():
            if key in _SKIP_VIEW_KEYS or key in ("table", "hand", "hand_counts"):
                continue
            lines.append(f"{key.replace('_', ' ')}: {self.value(key, value)}")
        return lines

    def per_seat(self, values: Sequence[Any]) -> str:
        """``you: 3, AI 1: 2`` for a value per seat."""
        return ", ".join(f"{self.seats(i)}: {v}" for i, v in enumerate(values))

    def value(self, key: str, value: Any, limit: int = 160) -> str:
        """Any field, compactly; card fields named."""
        if key in _CARD_KEYS and isinstance(value, list) and all(isinstance(v, str) for v in value):
            return self.cards(value)
        if key in _CARD_KEYS and isinstance(value, str):
            return self.card(value)
        if key == "seat" and isinstance(value, int):
            return self.seats(value)
        if isinstance(value, str | int | float | bool) or value is None:
            return str(value)
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        return text if len(text) <= limit else text[: limit - 1] + "…"

    # -- actions -----------------------------------------------------------------
    def action(self, action: Mapping[str, Any]) -> str:
        """One legal action as a short phrase."""
        return self.game_action(action) or self.generic_action(action)

    def game_action(self, action: Mapping[str, Any]) -> str | None:
        """The game's own phrase, or None for the generic one."""
        return None

    def generic_action(self, action: Mapping[str, Any]) -> str:
        """``Play: card Seven of Denari (7D), capture …``."""
        kind = str(action.get("type", "action")).replace("_", " ").capitalize()
        parts = [
            f"{k} {self.value(k, v)}"
            for k, v in action.items()
            if k != "type" and v not in (None, [])
        ]
        return kind + (": " + ", ".join(parts) if parts else "")

    def action_cards(self, action: Mapping[str, Any]) -> frozenset[str]:
        """Every card an action names (to match what a person types)."""
        out: set[str] = set()
        for key, value in action.items():
            if key in _CARD_KEYS:
                if isinstance(value, str):
                    out.add(value)
                elif isinstance(value, list):
                    out.update(v for v in value if isinstance(v, str))
        return frozenset(out)

    def move_keys(self, legal: Sequence[Mapping[str, Any]]) -> list[str]:
        """What a person types to pick each move: its number from 1 (games may differ)."""
        return [str(i) for i in range(1, len(legal) + 1)]

    def short_action(self, action: Mapping[str, Any]) -> str:
        """The move in as few characters as will do (codes instead of names)."""
        return self.action(action)

    def move_labels(self, legal: Sequence[Mapping[str, Any]]) -> list[str]:
        """``1) Play …`` per move: named in full when every label fits the width."""
        keys = self.move_keys(legal)
        labels = [f"{k}) {self.action(a)}" for k, a in zip(keys, legal, strict=True)]
        if any(visible_len(label) > self.width - 4 for label in labels):
            labels = [f"{k}) {self.short_action(a)}" for k, a in zip(keys, legal, strict=True)]
        return labels

    def mentions(self, action: Mapping[str, Any], label: str, word: str) -> bool:
        """Whether ``moves WORD`` lists ``action`` (shown as ``label``): its words hold it."""
        return word.lower() in label.lower()

    def moves_lines(self, legal: Sequence[Mapping[str, Any]]) -> list[str]:
        """The legal actions, keyed, in columns when they are many."""
        labels = self.move_labels(legal)
        if len(labels) <= 8:
            return ["  " + label for label in labels]
        return columns(labels, self.width)

    def word_move(
        self, words: Sequence[str], legal: Sequence[Mapping[str, Any]]
    ) -> list[int] | dict[str, Any] | None:
        """The moves ``words`` name (``pass``, ``bid 2``), or an action to let the server
        judge when they name one that is not legal now, or None when they are not words."""
        kind = words[0]
        typed = [i for i, a in enumerate(legal) if str(a.get("type", "")).lower() == kind]
        if len(words) == 1 and (typed or kind == "pass"):
            return typed
        if kind == "bid" and len(words) == 2 and words[1].isdigit():
            value = int(words[1])
            found = [i for i in typed if legal[i].get("value") == value]
            return found or {"type": "bid", "value": value}
        return None

    def typed_action(self, cards: Sequence[str], view: Mapping[str, Any]) -> dict[str, Any] | None:
        """The action typed ``cards`` would be though no legal move is made of them
        (sent so the server's rules say why not); None when there is none."""
        return None

    def not_a_move(self, cards: Sequence[str], view: Mapping[str, Any]) -> str | None:
        """Why ``cards`` are no move at all, in the game's terms (None: no more to say)."""
        missing = [c for c in cards if c not in (view.get("hand") or cards)]
        if len(missing) == 1:
            return self.t("move.not_in_hand_one", cards=missing[0])
        if missing:
            return self.t("move.not_in_hand_many", cards=" ".join(missing))
        return None

    def notices(self, view: Mapping[str, Any]) -> list[str]:
        """Things a player must not miss, shown with the table (none by default)."""
        return []

    def last_lines(self, view: Mapping[str, Any]) -> list[str] | None:
        """The last trick or round from the view, or None when the view does not keep it."""
        return None

    # -- events --------------------------------------------------------------
    def event(self, event: Mapping[str, Any]) -> list[str]:
        """What happened, in a line or a few; nothing for events not worth a line."""
        kind = str(event.get("kind", ""))
        data = event.get("data")
        data = data if isinstance(data, Mapping) else {"value": data}
        lines = self.game_event(kind, data)
        return self.generic_event(kind, data) if lines is None else lines

    def game_event(self, kind: str, data: Mapping[str, Any]) -> list[str] | None:
        """The game's own lines for an event, or None for the generic line."""
        return None

    def generic_event(self, kind: str, data: Mapping[str, Any]) -> list[str]:
        """``Play: seat you, card Seven of Denari (7D)``."""
        parts = [f"{k} {self.value(k, v)}" for k, v in data.items()]
        return [kind.replace("_", " ").capitalize() + (": " + ", ".join(parts) if parts else "")]

    # -- results -----------------------------------------------------------------
    def result_lines(self, result: Mapping[str, Any]) -> list[str]:
        """The end of a game: scores, winners, and the summary figures."""
        lines = [self.t("result.over")]
        scores = result.get("scores")
        if isinstance(scores, list):
            lines.append(self.t("result.scores", scores=self.per_seat(scores)))
        winners = result.get("winners")
        if isinstance(winners, list):
            if not winners:
                lines.append(self.t("result.nobody_won"))
            elif winners == [self.seats.me]:
                lines.append(self.t("result.you_won"))
            else:
                names = ", ".join(self.seats(w) for w in winners)
                key = "result.winners" if len(winners) > 1 else "result.winner"
                lines.append(self.t(key, names=names))
        lines.extend(self.game_summary(result.get("summary") or {}))
        return lines

    def game_summary(self, summary: Mapping[str, Any]) -> list[str]:
        """Summary figures worth a line (generic: none)."""
        return []
