"""The terminal client's language: card names, game terms, error messages and UI text.

Two kinds of data, one JSON file per language each:

* the SHARED data of the page, ``client_web/i18n/<lang>.json``: ``card_format``,
  ``rank_names``/``suit_names`` per pattern id or card family, ``jokers``,
  ``errors.<ErrorCode>`` and ``terms.<game>.<term>``, so a card is named one way
  in one language on the page and in the terminal;
* the terminal's own strings, ``client_cli/i18n/<lang>.json`` (``t(key)``), and
  ``words``: what a player may type for a move in that language (``passo``).

English is the base: a key a language lacks is taken from English.  The
language is picked by ``--lang``, else ``CARDAVIA_LANG``, else the locale
(``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``it_IT.UTF-8`` is Italian), else English.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import client_web
from client_cli.common import EXIT_USAGE, CliError, add_server, run
from engine.cards import PATTERNS

LANGUAGES: tuple[str, ...] = ("en", "it", "de", "hu", "tr", "zh")
"""The languages the terminal speaks (``--lang``)."""

DEFAULT = "en"
ENV = "CARDAVIA_LANG"
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")
"""The locale variables, in the order POSIX consults them for messages."""

UI_DIR = Path(__file__).resolve().parent / "i18n"
SHARED_DIR = Path(client_web.__file__).resolve().parent / "i18n"


class UnknownLanguage(CliError):
    """A language this client does not speak (a usage error naming the known ones)."""

    def __init__(self, name: str, source: str = "--lang") -> None:
        super().__init__(
            f"{source}: unknown language {name!r}; choose one of {', '.join(LANGUAGES)}",
            EXIT_USAGE,
        )


def normalize(name: str) -> str | None:
    """``it``, ``IT``, ``it_IT.UTF-8``, ``de-AT`` → the language code, or None when it is
    not one of :data:`LANGUAGES`."""
    code = name.strip().split(".", 1)[0].split("@", 1)[0].replace("-", "_").split("_", 1)[0]
    code = code.lower()
    return code if code in LANGUAGES else None


def from_locale(environ: Mapping[str, str]) -> str | None:
    """The language of the locale: the first locale variable set (``C``/``POSIX`` and
    unsupported languages mean English)."""
    for var in LOCALE_VARS:
        value = environ.get(var, "").strip()
        if value:
            return normalize(value) or DEFAULT
    return None


def choose(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: ``flag`` (``--lang``), else ``CARDAVIA_LANG``, else the
    locale, else English.  An explicit unknown name raises :class:`UnknownLanguage`."""
    env = os.environ if environ is None else environ
    if flag:
        found = normalize(flag)
        if found is None:
            raise UnknownLanguage(flag)
        return found
    if env.get(ENV, "").strip():
        found = normalize(env[ENV])
        if found is None:
            raise UnknownLanguage(env[ENV], ENV)
        return found
    return from_locale(env) or DEFAULT


def _load(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` laid over ``base``, recursively (``base`` fills what ``over`` lacks)."""
    out = dict(base)
    for key, value in over.items():
        old = out.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            out[key] = merged(old, value)
        else:
            out[key] = value
    return out


def lookup(table: Mapping[str, Any], key: str) -> str | None:
    """The string at a dotted ``key`` of ``table``, or None."""
    node: Any = table
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, str) else None


@dataclass(frozen=True)
class Language:
    """One language's strings, English filling the gaps."""

    code: str
    shared: Mapping[str, Any]
    """The page's data (``client_web/i18n``) merged over English."""
    ui: Mapping[str, Any]
    """The terminal's strings (``client_cli/i18n``) merged over English."""

    # -- cards -----------------------------------------------------------------------
    def _names(self, section: str, pattern: str) -> Mapping[str, str]:
        table = self.shared.get(section) or {}
        found = table.get(pattern)
        if not isinstance(found, Mapping):
            known = PATTERNS.get(pattern)
            found = table.get(known.family.name) if known is not None else None
        return found if isinstance(found, Mapping) else {}

    def rank_name(self, rank: str, pattern: str) -> str:
        """A rank's name in ``pattern`` (its letter when the data has none)."""
        return str(self._names("rank_names", pattern).get(rank, rank))

    def suit_name(self, suit: str, pattern: str) -> str:
        """A suit's name in ``pattern`` (its letter when the data has none)."""
        return str(self._names("suit_names", pattern).get(suit, suit))

    def card_name(self, code: str, pattern: str) -> str:
        """``Sette di Denari``: the card ``code`` named in ``pattern``, as the page names it
        (a joker by ``jokers``; a pattern's names, else its family's)."""
        rank, suit = code[:1], code[1:2]
        if suit == "J" and rank in ("B", "R"):
            jokers = self.shared.get("jokers") or {}
            return str(jokers.get(rank, code))
        fmt = lookup(self.shared, "card_format") or "{rank} of {suit}"
        return fmt.replace("{rank}", self.rank_name(rank, pattern)).replace(
            "{suit}", self.suit_name(suit, pattern)
        )

    # -- words -----------------------------------------------------------------------
    def term(self, game: str, key: str, default: str | None = None) -> str:
        """A game term (``terms.<game>.<key>`` of the shared data; the terminal's own
        ``terms`` where the shared data has none), else ``default``, else ``key``."""
        for table in (self.shared, self.ui):
            found = lookup(table, f"terms.{game}.{key}")
            if found is not None:
                return found
        return default if default is not None else key.replace("_", " ")

    def error(self, code: str, fallback: str) -> str:
        """The message for a server error ``code``: English keeps the server's own
        (it says the rule that refused); other languages say it by code."""
        if self.code == DEFAULT:
            return fallback
        return lookup(self.shared, f"errors.{code}") or fallback

    def reason(self, key: str) -> str | None:
        """The sentence for a refusal's reason ``key`` (``reasons.<key>``, an
        :class:`engine.reasons.Why`) with its ``{parameters}`` unfilled, or None."""
        return lookup(self.ui, f"reasons.{key}")

    def level(self, name: str) -> str:
        """An AI level's name (``levels.<policy>`` of the shared data), else ``name``."""
        return lookup(self.shared, f"levels.{name}") or name

    def t(self, key: str, **args: Any) -> str:
        """The terminal string ``key`` with its ``{placeholders}`` filled."""
        text = lookup(self.ui, key)
        if text is None:
            raise KeyError(f"no string {key!r} in client_cli/i18n/en.json")
        return text.format(**args) if args else text

    def words(self) -> Mapping[str, str]:
        """What a player of this language may type for a move word: ``{word: english}``."""
        found = self.ui.get("words") or {}
        return {str(k).lower(): str(v) for k, v in found.items()}


@cache
def language(code: str = DEFAULT) -> Language:
    """The language ``code`` (one of :data:`LANGUAGES`), English filling its gaps."""
    found = normalize(code)
    if found is None:
        raise UnknownLanguage(code)
    shared_en = _load(SHARED_DIR / f"{DEFAULT}.json")
    ui_en = _load(UI_DIR / f"{DEFAULT}.json")
    if found == DEFAULT:
        return Language(found, shared_en, ui_en)
    return Language(
        found,
        merged(shared_en, _load(SHARED_DIR / f"{found}.json")),
        merged(ui_en, _load(UI_DIR / f"{found}.json")),
    )


def add_lang(parser: argparse.ArgumentParser) -> None:
    """The ``--lang`` option of the commands that print cards."""
    parser.add_argument(
        "--lang",
        metavar="LANG",
        help=f"language of cards, terms and messages: {', '.join(LANGUAGES)} (default: "
        f"${ENV}, else the locale's LC_ALL/LC_MESSAGES/LANG, else en)",
    )


def from_args(args: argparse.Namespace) -> Language:
    """The language a command's ``--lang`` (or the environment) picks."""
    return language(choose(getattr(args, "lang", None)))


LangMain = Callable[[argparse.Namespace, Language], Coroutine[Any, Any, int]]
"""A command's main: its arguments and the language it speaks in → its exit status."""


def run_with_lang(main: LangMain) -> Callable[[argparse.Namespace], int]:
    """A command's entry point (``set_defaults(func=...)``) that runs ``main`` with the
    language its ``--lang`` (or the environment) picks: an unknown one is a usage error
    before anything starts."""

    async def with_lang(args: argparse.Namespace) -> int:
        return await main(args, from_args(args))

    return lambda args: run(with_lang(args))


def server_actions(
    sub: Any, name: str, summary: str, description: str | None, main: LangMain
) -> Callable[[str, str], argparse.ArgumentParser]:
    """Register ``cardavia NAME ACTION``, a command of actions that each talk to a
    server (``--url``, ``--json``, ``--lang``) and run ``main``; what it returns adds
    one action (its parser, for the action's own arguments)."""
    p = sub.add_parser(
        name,
        help=summary,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", required=True)

    def action(action_name: str, action_help: str) -> argparse.ArgumentParser:
        q: argparse.ArgumentParser = actions.add_parser(action_name, help=action_help)
        add_server(q)
        q.add_argument("--json", action="store_true", help="machine-readable output")
        add_lang(q)
        q.set_defaults(func=run_with_lang(main))
        return q

    return action
