"""From what a person types to one legal move: numbers, cards, words; never a guess.

:func:`choose_move` answers with a :class:`Pick` (exactly one move), an
:class:`Ask` (several moves fit: list them and ask), a :class:`Send` (no
legal move is made of it, but it is a move the game knows: the server's
rules then say why it is refused), or a :class:`Refuse` (a message).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from client_cli.lang import Language, language
from client_cli.render.base import Renderer


@dataclass(frozen=True)
class Pick:
    """The move at ``index`` of the legal moves."""

    index: int


@dataclass(frozen=True)
class Ask:
    """Several moves fit what was typed: the indices, to list and ask which."""

    indices: tuple[int, ...]


@dataclass(frozen=True)
class Send:
    """Not a legal move, but one the game can judge: send it so the rules say why not."""

    action: dict[str, Any]


@dataclass(frozen=True)
class Refuse:
    """Nothing to play: the message says why and what to type."""

    message: str


Choice = Pick | Ask | Send | Refuse


def looks_like_cards(tokens: Sequence[str]) -> bool:
    """Whether every token is a two-character card code."""
    return bool(tokens) and all(len(t) == 2 and t.isalnum() for t in tokens)


def choose_move(
    text: str,
    legal: Sequence[Mapping[str, Any]],
    render: Renderer,
    view: Mapping[str, Any] | None = None,
) -> Choice:
    """What ``text`` names among ``legal`` (see the module docstring).

    * a key (``1`` … ``n``; the bid's value in a Dou Dizhu auction) picks that move;
    * words (``pass``, ``bid 2``, ``herz solo``, ``rufer E``) pick the moves they name;
    * cards pick the one move made of them, or the one move holding them all; when
      several moves hold them (the same card placed or capturing) the player is asked.
    """
    text = text.strip()
    keys = render.move_keys(legal)
    if text in keys:
        return Pick(keys.index(text))
    hint = key_hint(keys, render.lang)
    if text.isdigit():
        return Refuse(render.t("move.pick", keys=hint))
    tokens = text.replace(",", " ").replace("+", " ").split()
    if not tokens:
        return Refuse(render.t("move.type_one"))
    aliases = render.lang.words()
    words = [aliases.get(t.lower(), t.lower()) for t in tokens]
    found = render.word_move(words, legal)
    if isinstance(found, dict):
        return Send(found)
    if found is not None:
        if len(found) == 1:
            return Pick(found[0])
        if found:
            return Ask(tuple(found))
        return Refuse(render.t("move.not_now", text=repr(text), keys=hint))
    if not looks_like_cards(tokens):
        return Refuse(render.t("move.not_yours", text=repr(text), keys=hint))
    cards = [t.upper() for t in tokens]
    if render.pattern is not None:
        bad = [c for c in cards if render.card_name(c) is None]
        if bad:
            return Refuse(render.t("move.not_a_card", card=bad[0], keys=hint))
    wanted = frozenset(cards)
    holding = [i for i, a in enumerate(legal) if wanted <= render.action_cards(a)]
    exact = [i for i in holding if render.action_cards(legal[i]) == wanted]
    if render.exact_names_move:
        # the cards are the whole move (Dou Dizhu, Schafkopf): never a bigger move holding
        # them; other cards of the same ranks go to the server, which judges the play
        if len(exact) == 1:
            return Pick(exact[0])
        if exact:
            return Ask(tuple(exact))
    elif len(holding) == 1:
        return Pick(holding[0])
    elif holding:
        return Ask(tuple(holding))
    action = render.typed_action(cards, view or {})
    if action is not None:
        return Send(action)
    why = render.not_a_move(cards, view or {})
    if why:
        return Refuse(render.t("move.why_not", why=why, keys=hint))
    return Refuse(render.t("move.not_yours", text=repr(text), keys=hint))


def key_hint(keys: Sequence[str], lang: Language | None = None) -> str:
    """``a number from 1 to 12`` / ``1`` / ``one of 0, 2, 3``: what to type to pick a move."""
    lang = lang or language()
    if len(keys) == 1:
        return keys[0]
    text = key_range(keys, lang)
    if "-" in text:
        first, last = text.split("-")
        return lang.t("move.number_from", first=first, last=last)
    return lang.t("move.one_of", keys=text)


def key_range(keys: Sequence[str], lang: Language | None = None) -> str:
    """``1-12`` for consecutive numbers (in any order: a Dou Dizhu pass is 0 wherever it
    stands), else ``0, 2, 3``."""
    if not keys:
        return (lang or language()).t("view.none")
    numbers = sorted(int(k) for k in keys if k.isdigit())
    if len(numbers) == len(keys) and numbers == list(range(numbers[0], numbers[0] + len(keys))):
        return f"{numbers[0]}-{numbers[-1]}" if len(keys) > 1 else keys[0]
    return ", ".join(keys)
