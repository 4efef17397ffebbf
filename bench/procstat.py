"""Process helpers for the load benchmark: /proc figures, servers as subprocesses, fd limits."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Coroutine, Sequence
from typing import Any

from bench.loopback import no_address_cap_flags

_TICKS = os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name: state, parent id, … (Linux);
    raises OSError for a process that is gone."""
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
        return f.read().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds the process ``pid`` has used so far."""
    fields = stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / _TICKS


def answers_ok(url: str, deadline: float, proc: subprocess.Popen[Any]) -> bool:
    """Poll ``url`` until ``proc`` answers it 200 (True), or ``proc`` exits or
    ``deadline`` (``time.monotonic``) passes (False).  An answer naming another
    process (the ``pid`` of ``/healthz``) is not ``proc``'s: a port picked free may be
    taken by another server before ``proc`` binds it, and ``proc`` then exits."""
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200 and _answered_by(reply.read(), proc.pid):
                    return True
        except OSError:  # no answer yet, or an error status (HTTPError) such as 503
            pass
        time.sleep(0.05)
    return False


def _answered_by(body: bytes, pid: int) -> bool:
    """Whether a 200 answer came from process ``pid`` (an answer without a pid, such
    as ``/readyz``'s, is taken as its)."""
    try:
        said = json.loads(body).get("pid", pid)
    except (ValueError, AttributeError):
        return True
    return bool(said == pid)


def rss_bytes(pid: int) -> int:
    """The resident set size of ``pid`` in bytes."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def raise_fd_limit() -> int:
    """Raise this process's open-file limit to the hard limit; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def run_loop(main: Coroutine[Any, Any, Any], loop: str) -> Any:
    """Run ``main`` on the event loop ``loop`` names (auto, asyncio, uvloop)."""
    from server.ops.loops import run_with_loop

    return run_with_loop(main, loop)


class ServerProcess:
    """A server started as a subprocess on 127.0.0.1; its port and pid.

    It waits for the stdout/stderr line that announces the port (``port N``
    for the yardsticks, the ``listening`` log line of ``cardavia-server``),
    then, given ``ready_path`` (``/readyz`` for ``cardavia-server``, whose AI
    workers start after it listens), until that path answers 200; the output
    goes to a temporary file.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        timeout: float = 30.0,
        ready_path: str | None = None,
    ) -> None:
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed in stop()
            mode="w+", prefix="cardavia-bench-", suffix=".log"
        )
        self.proc = subprocess.Popen(
            list(argv),
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
        )
        self.pid = self.proc.pid
        started = time.monotonic()
        self.port = self._read_port(timeout)
        if ready_path is not None:
            self._wait_ready(ready_path, started + timeout)

    def _wait_ready(self, path: str, deadline: float) -> None:
        if answers_ok(f"http://127.0.0.1:{self.port}{path}", deadline, self.proc):
            return
        if self.proc.poll() is not None:
            raise RuntimeError(f"server exited early:\n{self.output()}")
        self.stop()
        raise RuntimeError(f"server was not ready in time ({path}):\n{self.output()}")

    def _read_port(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.output()}")
            for line in self.output().splitlines():
                if line.startswith("port "):
                    return int(line.split()[1])
                if '"listening"' in line and "ws://" in line:
                    return int(line.split("ws://", 1)[1].split(":", 1)[1].split('"')[0])
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not start in time")

    def output(self) -> str:
        """Everything the server wrote so far."""
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL after 10 s)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def cardavia_argv(tables: int, loop: str | None, extra: Sequence[str] = ()) -> list[str]:
    """The command line of a benchmark ``cardavia-server`` (all-human tables, no AI delay).

    ``loop`` None leaves the event loop to the server (for versions without ``--loop``).
    """
    argv = [
        sys.executable,
        "-m",
        "server.main",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--ai-delay",
        "0",
        "--max-tables",
        str(max(tables + 10, 1000)),
        "--rate-per-s",
        "100000",
        "--rate-burst",
        "100000",
        "--log-level",
        "info",
        # every bench client connects from 127.0.0.1: no per-address caps
        *no_address_cap_flags(),
    ]
    if loop is not None:
        argv += ["--loop", loop]
    return argv + list(extra)


def raw_argv(mode: str, loop: str) -> list[str]:
    """The command line of a yardstick server (:mod:`bench.raw_servers`)."""
    return [sys.executable, "-m", "bench.raw_servers", "--mode", mode, "--loop", loop]
