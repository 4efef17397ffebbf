"""Terminal plumbing for interactive play: typed lines and a prompt that stays usable
while updates are printed above it.

On a terminal, :class:`PromptInput` reads with prompt_toolkit: the prompt is
redrawn below whatever is printed (``patch_stdout``), with line editing,
history (up arrow) and completion (Tab) of the words and cards of the legal
moves.  Elsewhere (pipes, bots, tests) :class:`StdinLines` reads plain lines
without blocking the event loop and :class:`Screen` keeps the prompt as the
last line by hand.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TextIO

from client_cli.style import terminal_size, visible_len


class Lines(Protocol):
    """A source of typed lines (``None``: input ended)."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    async def get(self) -> str | None: ...


class StdinLines:
    """Lines typed on stdin, read without blocking the event loop.

    On POSIX the file descriptor is watched by the loop (``add_reader``) and
    read with ``os.read``, so updates keep arriving while a person thinks;
    elsewhere a daemon thread reads lines.  ``None`` marks the end of input.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdin
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._partial = ""
        self._fd: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Begin reading (call from inside the running loop)."""
        self._loop = asyncio.get_running_loop()
        try:
            fd = self.stream.fileno()
            self._loop.add_reader(fd, self._readable)
            self._fd = fd
        except (NotImplementedError, OSError, ValueError, AttributeError):
            threading.Thread(target=self._pump, name="stdin", daemon=True).start()

    def stop(self) -> None:
        """Stop watching stdin."""
        if self._fd is not None and self._loop is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._fd)
            self._fd = None

    async def get(self) -> str | None:
        """The next line without its newline; ``None`` once stdin is closed."""
        return await self.queue.get()

    def _readable(self) -> None:
        assert self._fd is not None
        try:
            data = os.read(self._fd, 4096)
        except OSError:
            data = b""
        if not data:
            self.stop()
            if self._partial:
                self.queue.put_nowait(self._partial)
                self._partial = ""
            self.queue.put_nowait(None)
            return
        text = self._partial + self._decoder.decode(data)
        *lines, self._partial = text.split("\n")
        for line in lines:
            self.queue.put_nowait(line.rstrip("\r"))

    def _pump(self) -> None:
        assert self._loop is not None
        while True:
            line = self.stream.readline()
            self._loop.call_soon_threadsafe(
                self.queue.put_nowait, line.rstrip("\r\n") if line else None
            )
            if not line:
                return


class Screen:
    """Prints lines, keeping the current prompt (if any) as the last line."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self.tty = bool(getattr(self.out, "isatty", lambda: False)())
        self.prompt: str | None = None
        self._prompt_shown = False
        self._refresh: Callable[[], None] | None = None

    def attach(self, refresh: Callable[[], None] | None) -> None:
        """A prompt_toolkit prompt draws the prompt from now on (``refresh`` redraws it);
        lines go to the patched ``sys.stdout`` above it.  ``None`` detaches."""
        self._refresh = refresh
        self._prompt_shown = False

    def show(self, lines: Iterable[str]) -> None:
        """Print ``lines`` above the prompt; on a terminal, lines too long for it are
        wrapped between words (so a card code is never cut in two)."""
        lines = list(lines)
        if not lines:
            return
        if self.tty:
            width = terminal_size()[0]
            lines = [part for line in lines for part in fit(line, width)]
        if self._refresh is not None:
            sys.stdout.write("".join(line + "\n" for line in lines))
            sys.stdout.flush()
            return
        self._clear_prompt()
        self.out.write("".join(line + "\n" for line in lines))
        self._show_prompt()

    def ask(self, prompt: str | None) -> None:
        """Show ``prompt`` (None: no prompt) and keep it shown after later output."""
        if self._refresh is not None:
            self.prompt = prompt
            self._refresh()
            return
        if prompt == self.prompt and self._prompt_shown:
            return
        self._clear_prompt()
        self.prompt = prompt
        self._show_prompt()

    def answered(self) -> None:
        """A line was typed: the cursor is on a fresh line, the prompt is gone."""
        self._prompt_shown = False

    def _clear_prompt(self) -> None:
        if self._prompt_shown:
            self.out.write("\r\x1b[K" if self.tty else "\n")
            self._prompt_shown = False

    def _show_prompt(self) -> None:
        if self.prompt and not self._prompt_shown:
            self.out.write(self.prompt)
            self._prompt_shown = True
        self.out.flush()


def fit(line: str, width: int) -> list[str]:
    """``line`` as it fits in ``width`` columns: unchanged, or wrapped between words.

    Widths count what shows: a colour code takes no column and, holding no space,
    is never cut from its card (``textwrap`` counted its bytes and broke inside a
    coloured hand).  A word wider than the line keeps a line of its own.
    """
    if visible_len(line) <= width or "\n" in line:
        return [line]
    indent = " " * min(len(line) - len(line.lstrip(" ")) + 4, width // 2)
    first, *rest = _SPACES.split(line)
    lines: list[str] = []
    current = first
    for gap, word in zip(rest[::2], rest[1::2], strict=True):
        if not word:
            continue  # trailing spaces
        if visible_len(current) + len(gap) + visible_len(word) <= width or not current.strip():
            current += gap + word
        else:
            lines.append(current.rstrip())
            current = indent + word
    lines.append(current.rstrip())
    return lines


_SPACES = re.compile(r"( +)")


class PromptInput:
    """Lines typed at a prompt_toolkit prompt: editing, history, completion of ``words()``.

    While it runs, ``sys.stdout`` is patched so that everything printed appears
    above the prompt; the prompt shows ``screen.prompt``.  Ctrl-C raises
    :class:`KeyboardInterrupt` from :meth:`get`, Ctrl-D ends the input.
    """

    def __init__(self, screen: Screen, words: Callable[[], Iterable[str]]) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import WordCompleter
        from prompt_toolkit.history import InMemoryHistory

        self.screen = screen
        self.queue: asyncio.Queue[str | BaseException | None] = asyncio.Queue()
        self.session: Any = PromptSession(
            history=InMemoryHistory(),
            completer=WordCompleter(lambda: sorted(set(words())), ignore_case=True),
            complete_while_typing=False,
            reserve_space_for_menu=4,
        )
        self._task: asyncio.Future[None] | None = None
        self._patch: Any = None
        self._saved: tuple[TextIO, TextIO] = (sys.stdout, sys.stderr)

    def start(self) -> None:
        """Begin reading (call from inside the running loop)."""
        from prompt_toolkit.patch_stdout import StdoutProxy

        # what is printed goes above the prompt, promptly (the default batches 0.2 s)
        self._patch = StdoutProxy(sleep_between_writes=0.01, raw=True)
        self._saved = (sys.stdout, sys.stderr)
        sys.stdout = sys.stderr = self._patch
        self.screen.attach(self.refresh)
        self._task = asyncio.ensure_future(self._read())

    def stop(self) -> None:
        """Stop reading and give ``sys.stdout`` back."""
        self.screen.attach(None)
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._patch is not None:
            sys.stdout, sys.stderr = self._saved
            self._patch.close()
            self._patch = None

    def refresh(self) -> None:
        """Redraw the prompt (its text changed)."""
        app = self.session.app
        if app.is_running:
            app.invalidate()

    async def get(self) -> str | None:
        """The next line; ``None`` once input ended; Ctrl-C raises KeyboardInterrupt."""
        item = await self.queue.get()
        if isinstance(item, BaseException):
            raise item
        return item

    async def _read(self) -> None:
        while True:
            try:
                line = await self.session.prompt_async(lambda: self.screen.prompt or "")
            except EOFError:
                self.queue.put_nowait(None)
                return
            except KeyboardInterrupt as exc:
                self.queue.put_nowait(exc)
                return
            self.screen.prompt = None  # answered: no prompt until the session asks again
            self.queue.put_nowait(line)


def wants_prompt_toolkit() -> bool:
    """Whether stdin and stdout are both a terminal (else plain lines)."""
    return sys.stdin.isatty() and sys.stdout.isatty() and os.environ.get("TERM") != "dumb"
