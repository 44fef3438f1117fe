"""``wmq play`` (a match at the terminal against a game's bots) and ``wmq replay`` (records).

Both speak to the game through the seam. A game with its own terminal front end (the seam's
``"terminal"`` capability: 偎麻雀's board) plays and replays through it; any other game is
played here from what the seam gives every game: the seat's view as JSON, the legal actions'
text forms (``Game.action(id)``, read back with ``Game.parse_action``), the events as the seat
sees them (``event.view(seat)``), the game's bots (``Game.bot``) at the other seats, the match's
ledger. ``wmq replay`` reads a record of any game: 偎麻雀's (which name no ``game``) through its
front end, another game's hand record through ``get_game(game).replay(record)``, its events
shown as the chosen viewer sees them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final

import typer
from rich.console import Console

from weimaque.cli.records import (
    SLIPPED,
    game_hand_record,
    read_record,
    record_game,
    refuse,
)
from weimaque.errors import IllegalAction, InvalidNotation, WeimaqueError, quoted
from weimaque.games import Game, PlayRequest, SeatBot, TerminalFrontEnd, get_game

#: The game ``wmq play`` and ``wmq replay`` play without ``--game``: 偎麻雀.
DEFAULT_GAME: Final = "maque"
#: The seat a person takes.
HUMAN: Final = 0
QUIT_WORDS: Final = frozenset({"q", "quit", "exit", "退出"})
VIEW_WORDS: Final = frozenset({"?", "？", "v", "view"})

InputFn = Callable[[str], str]


class QuitPlay(Exception):
    """The person asked to stop (``q``) or the input ended."""


def _fail(err: Console, message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(2)


def register(app: typer.Typer) -> None:
    """Add ``wmq play`` and ``wmq replay`` to the app."""
    app.command("play")(play_cmd)
    app.command("replay")(replay_cmd)


def play_cmd(
    rules: Annotated[
        str | None, typer.Option("--rules", "-r", help="Preset id (default: the game's first).")
    ] = None,
    bots: Annotated[
        str | None,
        typer.Option(
            help="The bots at the other seats, in seat order (one name serves all; 偎麻雀: "
            "下家 then 上家, default greedy,mcts; another game: its first bot)."
        ),
    ] = None,
    hands: Annotated[
        int | None,
        typer.Option("--hands", "-n", min=1, help="Hands in the match (default: the preset's)."),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Match seed (default: random).")] = None,
    save: Annotated[
        Path | None, typer.Option(help="Write the match record JSON here (after every hand).")
    ] = None,
    auto_pass: Annotated[
        bool, typer.Option("--auto-pass", help="Pass claim windows offering only 吃 by itself.")
    ] = False,
    game: Annotated[
        str, typer.Option("--game", "-g", help="The game (default maque, 偎麻雀).")
    ] = DEFAULT_GAME,
    options_text: Annotated[
        str | None,
        typer.Option("--options", help="Rule options on top of the preset, as JSON."),
    ] = None,
) -> None:
    """Play a match at seat 0 against the game's bots: type a number, an action's text, ? or q.

    偎麻雀 (RULES §8.6): 出 三, 碰, ? for hints (docs/terminal.md)."""
    from weimaque.cli.arena import parse_options

    out = Console()
    err = Console(stderr=True)
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    try:
        found = get_game(game)
        request = PlayRequest(
            variant=rules,
            options=parse_options(options_text),
            bots=bots,
            hands=hands,
            seed=seed,
            save=None if save is None else str(save),
            auto_pass=auto_pass,
        )

        def ask(prompt: str) -> str:
            return out.input(prompt, markup=False)

        if isinstance(found, TerminalFrontEnd):
            found.terminal().play(out, ask, request)
        else:
            SeamMatch.make(found, out, ask, request).play()
    except WeimaqueError as exc:
        raise _fail(err, str(exc)) from exc


@dataclass
class SeamMatch:
    """A match of any game at the terminal through the seam: a person at :data:`HUMAN`, the
    game's bots at the other seats."""

    game: Game
    console: Console
    ask: InputFn
    variant: str
    options: dict[str, object]
    bots: dict[int, SeatBot]
    seed: int
    hands: int | None = None

    @classmethod
    def make(cls, game: Game, console: Console, ask: InputFn, request: PlayRequest) -> SeamMatch:
        """Check the request against the game (preset, options, bots) before anything is
        played: a ``WeimaqueError`` quoting what is wrong."""
        if request.save is not None:
            raise WeimaqueError(
                f"--save: a {game.info.id} match is not written as one record "
                "(a hand record of it is: the server's GET /api/rooms/{id}/hands/{n})"
            )
        if request.auto_pass:
            raise WeimaqueError("--auto-pass is 偎麻雀's (a claim offering only 吃)")
        schema = game.schema
        variant = schema.variant(request.variant).id if request.variant else schema.variants[0].id
        options: dict[str, object] = dict(schema.validate(dict(request.options)))
        seats = game.shape(variant, options).seats
        names = [n.strip() for n in (request.bots or game.bots[0].name).split(",") if n.strip()]
        if len(names) == 1:
            names *= seats - 1
        if len(names) != seats - 1:
            raise WeimaqueError(
                f"--bots takes one bot name or {seats - 1}, not {quoted(request.bots)}"
            )
        others = [s for s in range(seats) if s != HUMAN]
        bots = {s: game.bot(name, variant, options) for s, name in zip(others, names, strict=True)}
        return cls(game, console, ask, variant, options, bots, request.seed, request.hands)

    def say(self, *things: Any) -> None:
        """Print to the console (no markup, no highlighting)."""
        self.console.print(*things, markup=False, highlight=False)

    def read(self, prompt: str) -> str:
        """One line of input; ``q`` or the end of input stops the match."""
        try:
            line = self.ask(prompt)
        except EOFError as exc:
            raise QuitPlay from exc
        if line.strip().lower() in QUIT_WORDS:
            raise QuitPlay
        return line

    def play(self) -> None:
        """Hands until the match is over (or ``hands`` are played), then the ledger."""
        names = self.game.info.names
        self.say(f"{names.zh} {names.en}  preset {self.variant}  seed {self.seed}  你是座{HUMAN}")
        match = self.game.new_match(self.variant, self.options, self.seed)
        rng = random.Random(self.seed)
        played = 0
        try:
            while not match.is_over() and (self.hands is None or played < self.hands):
                played += 1
                hand = match.next_hand()
                self.say(f"\n━━ 第 {played} 局  dealer 座{hand.dealer} ━━")
                self.play_hand(hand, rng)
                outcome = hand.outcome()
                changes = match.finish(hand)
                if outcome is not None:
                    winners = ", ".join(f"座{w}" for w in outcome.winners) or "—"
                    self.say(f"胡 winners: {winners}  NET {list(outcome.net)}")
                self.say(f"结算 change: {list(changes)}")
        except QuitPlay:
            self.say(f"\n已退出 (seed {self.seed})")
        ledger = match.ledger()
        self.say(f"\n总账 ledger: {json.dumps(ledger.to_json(), ensure_ascii=False)}")

    def play_hand(self, hand: Any, rng: random.Random) -> None:
        """One hand to its end: in a window the person decides first, unseen by the bots."""
        shown = 0
        while not hand.is_terminal():
            shown = self.flush(hand, shown)
            to_act = hand.to_act()
            seat = HUMAN if HUMAN in to_act else to_act[0]
            if seat == HUMAN:
                action = self.decide(hand)
            else:
                action = self.bots[seat].act(hand.bot_view(seat), rng)
            hand.apply(seat, action)
        self.flush(hand, shown)

    def flush(self, hand: Any, shown: int) -> int:
        """Print the events not yet shown, as the person's seat sees them."""
        events = hand.events()
        for event in events[shown:]:
            view = event.view(HUMAN)
            if view is not None:
                self.say(event_line(view))
        return len(events)

    def show_view(self, hand: Any) -> None:
        """The seat's view (``Hand.view(seat).to_json()``), one field a line."""
        for key, value in hand.view(HUMAN).to_json().items():
            self.say(f"  {key}: {json.dumps(value, ensure_ascii=False)}")

    def decide(self, hand: Any) -> int:
        """Ask until a legal action: its number in the list, or its text form."""
        legal = hand.legal_actions(HUMAN)
        self.show_view(hand)
        choices = "  ".join(f"[{k}]{self.game.action(a)}" for k, a in enumerate(legal, 1))
        while True:
            self.say(f"你的选择 your move: {choices}")
            line = self.read(f"[1-{len(legal)} / action / ? view / q] > ").strip()
            if line in VIEW_WORDS:
                self.show_view(hand)
                continue
            try:
                action = self.choice(line, legal)
                hand.verify(HUMAN, action)
                return action
            except (IllegalAction, InvalidNotation) as exc:
                self.say(f"不行: {exc}")

    def choice(self, line: str, legal: tuple[int, ...]) -> int:
        """A typed line as an action id: an option number, or an action's text form."""
        if not line:
            raise InvalidNotation("empty input: type an option number or an action")
        if line.isdigit():
            k = int(line)
            if not 1 <= k <= len(legal):
                raise InvalidNotation(f"no option {k}: choose 1..{len(legal)}")
            return legal[k - 1]
        return self.game.parse_action(line).id


# ----------------------------------------------------------------- replay


#: The viewers of a game of the seam: a seat, a spectator, or everything (a finished record).
GAME_VIEWERS: Final = ("all", "public")


@dataclass
class Stepper:
    """Prints lines, waiting for Enter between steps when ``ask`` is given."""

    console: Console
    ask: InputFn | None = None

    def say(self, *things: Any) -> None:
        """Print to the console (no markup, no highlighting)."""
        self.console.print(*things, markup=False, highlight=False)

    def step(self) -> None:
        """Wait for Enter when stepping; ``q`` stops, the end of input shows the rest."""
        if self.ask is None:
            return
        try:
            line = self.ask("")
        except EOFError:
            self.ask = None
            return
        if line.strip().lower() in QUIT_WORDS:
            raise QuitPlay


def replay_cmd(
    file: Annotated[Path, typer.Argument(help="A hand or match record JSON.")],
    hand: Annotated[
        int | None, typer.Option("--hand", "-k", min=1, help="Only hand K (from 1).")
    ] = None,
    seat: Annotated[
        str, typer.Option("--seat", "-s", help="Point of view: 0, 1, 2, shouxing or all.")
    ] = "all",
    show_all: Annotated[
        bool, typer.Option("--all", "-a", help="Print everything, no stepping.")
    ] = False,
) -> None:
    """Step through a saved hand or match event by event (Enter steps, q stops)."""
    out = Console()
    try:
        record = read_record(file)
        game_id = record_game(record)
    except WeimaqueError as exc:
        raise refuse("replay", str(exc)) from exc
    ask = None if show_all else (lambda prompt: out.input(prompt, markup=False))
    found = get_game(game_id)
    if not isinstance(found, TerminalFrontEnd):
        replay_game_hand(out, game_id, record, hand, seat, show_all)
        return
    try:
        found.terminal().replay(out, ask, record, hand, seat)
    except WeimaqueError as exc:
        raise refuse("replay", str(exc)) from exc
    except SLIPPED as exc:
        raise refuse("replay", f"not a record: {type(exc).__name__}: {exc}") from exc


def event_line(view: dict[str, Any]) -> str:
    """One event view of a game of the seam in a line: its type, its seat, its fields."""
    head = [str(view.get("type", "?"))]
    if isinstance(view.get("seat"), int):
        head.append(f"座{view['seat']}")
    fields = []
    for key, value in view.items():
        if key in ("type", "seat") or value is None:
            continue
        if key == "transfers" and isinstance(value, list):
            value = ", ".join(
                f"s{t[0]}→s{t[1]} {t[2]} {t[3]}"
                for t in value
                if isinstance(t, list) and len(t) == 4
            )
        fields.append(f"{key}={value}")
    return " ".join(head + fields)


def replay_game_hand(
    out: Console, game_id: str, record: Any, hand: int | None, seat: str, show_all: bool
) -> None:
    """``wmq replay`` of a hand record of a game of the seam: the hand replayed whole first (a
    bad record is refused, exit 2), then its events as ``seat`` sees them."""
    try:
        if hand not in (None, 1):
            raise WeimaqueError(f"no hand {hand}: the record holds 1")
        if seat not in GAME_VIEWERS and not (seat.isdigit() and len(seat) == 1):
            raise WeimaqueError(f"--seat must be a seat number, all or public, not {seat!r}")
        viewer: int | str = int(seat) if seat.isdigit() else seat
        game = get_game(game_id)
        played = game.replay(game_hand_record(record, game_id))
        outcome = played.outcome()
        if isinstance(viewer, int) and outcome is not None and viewer >= len(outcome.net):
            raise WeimaqueError(f"no seat {viewer}: the hand has {len(outcome.net)} seats")
        events = played.events()
        views = [e.view(viewer) for e in events]
    except WeimaqueError as exc:
        raise refuse("replay", str(exc)) from exc
    except SLIPPED as exc:
        raise refuse("replay", f"not a record: {type(exc).__name__}: {exc}") from exc
    ask = None if show_all else (lambda prompt: out.input(prompt, markup=False))
    stepper = Stepper(out, ask)
    names = game.info.names
    stepper.say(f"━━ {names.zh} {names.en}  dealer 座{played.dealer}  (视角 view: {seat}) ━━")
    try:
        for view in views:
            if view is None:
                continue
            stepper.say(event_line(view))
            stepper.step()
    except QuitPlay:
        return
    if outcome is not None:
        stepper.say(f"NET {list(outcome.net)}")
