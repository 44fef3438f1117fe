"""A bot in another program: JSON lines over stdio, protocol ``weimaque-bot/1``.

The schema is in docs/bot-protocol.md.

The program is started on its seat's first decision (``cmd:COMMAND`` in the arena). It gets one
JSON object a line on stdin: ``hello`` once, then every ``event`` of the seat's own rendering of the
hand (:meth:`weimaque.games.maque.game.events.Event.view`), a ``request`` whenever the seat must
decide (the seat's observation and its legal actions) and ``end`` when the hand is over. It answers
each request with one line ``{"id": ..., "action": "出三"}`` (or ``"action_id"``) on stdout. All it
gets is built from :class:`~weimaque.games.maque.bots.base.BotView`, so it never sees a hidden card.

The first answer after the program starts may take ``STARTUP_MS`` longer (an interpreter's
start-up is not the bot's thinking). A decision goes to the fallback bot (``random`` with the
seat's RNG) when the program crashed, did not answer within the time limit, answered something
that is not a JSON object with an action, or named an action that is not legal now. Each such
decision is recorded in :attr:`ExternalBot.faults` (the arena reports them) and the hand goes on.
A crashed program is started again, with the hand's history replayed, at most ``restarts`` times;
one that timed out three decisions in a row is not waited for again in that hand.
"""

from __future__ import annotations

import json
import queue
import random
import re
import shlex
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any, Final

from weimaque.errors import InvalidNotation, WeimaqueError
from weimaque.games import lines
from weimaque.games.maque.bots.base import BotView, RandomBot
from weimaque.games.maque.game.actions import Action

DEFAULT_MS: Final = 2000
#: Extra time for the first answer after the program starts (an interpreter's start-up).
STARTUP_MS: Final = 10_000
#: Timeouts in a row after which the program is no longer waited for in this hand.
MAX_TIMEOUTS: Final = 3
#: Characters of a bad answer or of the program's stderr quoted in a fault.
QUOTE: Final = 200
_OPTION = re.compile(r"^(ms|restarts)=(\d+):")


@dataclass(frozen=True, slots=True)
class Fault:
    """One decision the program did not make: ``kind`` is crash, timeout, garbage or illegal."""

    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


def request_message(view: BotView, request_id: int, ms: int) -> lines.Request:
    """The ``request`` line for a decision: the seat's observation and its legal actions."""
    legal = [str(a) for a in view.legal]
    obs = view.obs.to_json()
    return lines.request(request_id, view.seat, ms, obs, legal, [a.id for a in view.legal])


def parse_answer(line: str, legal: tuple[Action, ...]) -> tuple[int | None, Action | Fault]:
    """The request id and the action of an answer line, or the fault it is."""
    answer = lines.read_answer(line)
    if isinstance(answer, str):
        return None, Fault("garbage", answer)
    rid = answer.id
    try:
        if isinstance(answer.action, str):
            action = Action.parse(answer.action)
        else:
            action = Action.from_id(answer.action)
    except InvalidNotation as exc:
        return rid, Fault("garbage", f"{exc} in {line.strip()[:QUOTE]!r}")
    if action not in legal:
        options = " ".join(str(a) for a in legal)
        return rid, Fault("illegal", f"{action} is not legal now (legal: {options})")
    return rid, action


class ExternalBot:
    """A bot played by an external program over JSON lines (see the module docstring)."""

    def __init__(self, command: list[str], ms: int = DEFAULT_MS, restarts: int = 2) -> None:
        if not command:
            raise WeimaqueError("cmd: needs a command, e.g. 'cmd:python3 my_bot.py'")
        if ms < 1:
            raise WeimaqueError(f"the time limit must be at least 1 ms, not {ms!r}")
        self.command = command
        self.name = "cmd:" + shlex.join(command)
        self.ms = ms
        self.restarts = restarts
        self.faults: list[Fault] = []
        self.fallback = RandomBot()
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        self._sent = 0
        self._first: Mapping[str, Any] | None = None
        self._next_id = 0
        self._timeouts = 0
        self._started = 0
        self._fresh = False

    @classmethod
    def from_spec(cls, spec: str) -> ExternalBot:
        """From ``cmd:COMMAND``, with options before the command: ``cmd:ms=500:./bot``."""
        rest = spec.strip().removeprefix("cmd:")
        options: dict[str, int] = {}
        while m := _OPTION.match(rest):
            options[m.group(1)] = int(m.group(2))
            rest = rest[m.end() :]
        try:
            command = shlex.split(rest)
        except ValueError as exc:
            raise WeimaqueError(f"cannot split the command in {spec!r}: {exc}") from exc
        return cls(command, **options)

    # ------------------------------------------------------------------ the program

    def _start(self, view: BotView) -> bool:
        """Start the program and tell it the hand so far; False if it cannot be started."""
        self._started += 1
        self._lines = queue.Queue()
        self._stderr.clear()
        try:
            proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as exc:
            self.faults.append(Fault("crash", f"cannot start {self.command!r}: {exc}"))
            return False
        self._proc = proc
        assert proc.stdout is not None and proc.stderr is not None
        threading.Thread(target=self._read, args=(proc.stdout, self._lines), daemon=True).start()
        threading.Thread(target=self._drain, args=(proc.stderr,), daemon=True).start()
        self._sent = 0
        return self._send(lines.hello(view.seat, view.rules.id, view.rules.options(), self.ms))

    @staticmethod
    def _read(stream: IO[str], lines: queue.Queue[str | None]) -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)  # end of output: the program has exited

    def _drain(self, stream: IO[str]) -> None:
        for line in stream:
            self._stderr.append(line.rstrip("\n"))

    def _send(self, message: Mapping[str, Any]) -> bool:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return False
        try:
            proc.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return False
        return True

    def _crash(self) -> Fault:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
        self._proc = None
        tail = " | ".join(self._stderr)[-QUOTE:]
        return Fault("crash", f"the program exited (status {code})" + (f": {tail}" if tail else ""))

    def _sync(self, view: BotView) -> bool:
        """Send the events the program has not seen; a new hand starts it over."""
        history = view.events
        new = self._first is None or history[0] != self._first or len(history) < self._sent
        if history and new:
            if self._first is not None and self._sent and not self._send(lines.new_hand()):
                return False
            self._first = history[0]
            self._sent = 0
            self._timeouts = 0
        for event in history[self._sent :]:
            if not self._send(lines.event(event)):
                return False
        self._sent = len(history)
        return True

    # ------------------------------------------------------------------ the bot protocol

    def act(self, view: BotView, rng: random.Random) -> Action:
        """Ask the program; on any fault record it and let the fallback decide."""
        outcome = self._ask(view)
        if isinstance(outcome, Action):
            return outcome
        self.faults.append(outcome)
        return self.fallback.act(view, rng)

    def _ask(self, view: BotView) -> Action | Fault:
        if self._timeouts >= MAX_TIMEOUTS:
            return Fault("timeout", f"not waited for after {MAX_TIMEOUTS} timeouts in a row")
        if self._proc is None or self._proc.poll() is not None:
            if self._proc is not None:
                self.faults.append(self._crash())
            if self._started > self.restarts:
                return Fault("crash", f"not restarted after {self.restarts} restarts")
            if not self._start(view):
                return self._crash()
            self._first = None
            self._fresh = True
        if not self._sync(view):
            return self._crash()
        self._next_id += 1
        rid = self._next_id
        if not self._send(request_message(view, rid, self.ms)):
            return self._crash()
        allowance = STARTUP_MS if self._fresh else 0
        self._fresh = False
        deadline = time.monotonic() + (self.ms + allowance) / 1000
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                self._timeouts += 1
                return Fault("timeout", f"no answer to request {rid} within {self.ms} ms")
            if line is None:
                return self._crash()
            if not line.strip():
                continue
            answer_id, outcome = parse_answer(line, view.legal)
            if answer_id is not None and answer_id != rid:
                continue  # a late answer to an earlier request
            self._timeouts = 0
            return outcome

    def close(self, view: BotView | None = None) -> None:
        """Tell the program the hand is over (with the final view) and stop it."""
        proc = self._proc
        if proc is None:
            return
        if view is not None and proc.poll() is None and self._sync(view):
            self._send(lines.end(view.obs.to_json()))
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self._proc = None
