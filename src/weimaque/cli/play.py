"""``wmq play`` (a match at the terminal against two bots) and ``wmq replay`` (saved records).

``wmq replay`` reads a record of any game: 偎麻雀's (which name no ``game``) as always, another
game's hand record through the seam (``get_game(game).replay(record)``), its events shown as the
chosen viewer sees them (``event.view(viewer)``)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Annotated, Any, Final

import typer
from rich.console import Console

from weimaque.cli.records import (
    DEFAULT_GAME,
    SLIPPED,
    check_record,
    game_hand_record,
    read_record,
    record_game,
    refuse,
)
from weimaque.cli.tui import QuitGame, Replayer, TerminalGame, record_hands
from weimaque.errors import RecordError, WeimaqueError
from weimaque.games.maque.bots import REGISTRY, Bot, get_bot, parse_params
from weimaque.games.maque.game.events import Viewer
from weimaque.games.maque.game.record import check_hand_record, replay
from weimaque.games.maque.match import Match, replay_match
from weimaque.games.maque.rules.registry import get_rules

DEFAULT_BOTS: Final = "greedy,mcts"
FALLBACK_BOT: Final = "random"
VIEWERS: Final = ("0", "1", "2", "shouxing", "all", "public")


def _fail(err: Console, message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(2)


def make_bots(spec: str | None, err: Console) -> list[Bot | None]:
    """Seats 0..2: the human (None) at 0, then the bots named in ``spec`` (one name serves both).

    Names left at the default that are not registered yet fall back to ``random`` with a note;
    a name the user typed that is unknown is an error.
    """
    names = [n.strip() for n in (spec or DEFAULT_BOTS).split(",") if n.strip()]
    if len(names) == 1:
        names *= 2
    if len(names) != 2:
        raise WeimaqueError(f"--bots takes one or two bot names, got {spec!r}")
    if spec is None:
        for k, name in enumerate(names):
            if parse_params(name)[0] not in REGISTRY:
                err.print(
                    f"note: bot {name!r} is not available; using {FALLBACK_BOT!r}",
                    highlight=False,
                    markup=False,
                )
                names[k] = FALLBACK_BOT
    return [None, get_bot(names[0]), get_bot(names[1])]


def parse_viewer(text: str) -> Viewer:
    """``0``/``1``/``2``/``shouxing``/``all``/``public`` as an event viewer."""
    if text not in VIEWERS:
        raise WeimaqueError(f"--seat must be one of {', '.join(VIEWERS)}, not {text!r}")
    if text.isdigit():
        return int(text)
    if text == "shouxing":
        return "shouxing"
    return "all" if text == "all" else "public"


def register(app: typer.Typer) -> None:
    """Add ``wmq play`` and ``wmq replay`` to the app."""
    app.command("play")(play_cmd)
    app.command("replay")(replay_cmd)


def play_cmd(
    rules: Annotated[str, typer.Option("--rules", "-r", help="Preset id.")] = "anxiang",
    bots: Annotated[
        str | None,
        typer.Option(help=f"The two bots, 下家 then 上家 (default {DEFAULT_BOTS})."),
    ] = None,
    hands: Annotated[
        int | None, typer.Option("--hands", "-n", min=1, help="Hands in the match (default 8).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Match seed (default: random).")] = None,
    save: Annotated[
        Path | None, typer.Option(help="Write the match record JSON here (after every hand).")
    ] = None,
    auto_pass: Annotated[
        bool, typer.Option("--auto-pass", help="Pass claim windows offering only 吃 by itself.")
    ] = False,
) -> None:
    """Play a match at seat 0 against two bots (RULES §8.6): type a number, 出 三, 碰, ? or q."""
    out = Console()
    err = Console(stderr=True)
    try:
        config = get_rules(rules)
        if hands is not None:
            config = config.with_options(match_hands=hands)
        players = make_bots(bots, err)
    except WeimaqueError as exc:
        raise _fail(err, str(exc)) from exc
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    match = Match.new(config, seed)

    def write(m: Match) -> None:
        if save is not None:
            save.write_text(json.dumps(m.record(), ensure_ascii=False, indent=1) + "\n", "utf-8")

    game = TerminalGame(
        out,
        lambda prompt: out.input(prompt, markup=False),
        players,
        random.Random(seed),
        auto_pass=auto_pass,
        on_hand_end=write,
    )
    try:
        game.play_match(match)
    except QuitGame:
        out.print(f"\n已退出 (seed {seed})", highlight=False, markup=False)
    if save is not None:
        write(match)
        out.print(f"记录已存: {save}", highlight=False, markup=False)


def check_replayable(record: dict[str, Any]) -> None:
    """Replay the whole record before showing any of it: a bad one is refused up front."""
    is_match, hands = record_hands(record)
    if not hands:
        raise RecordError("the record holds no hand")
    if is_match:
        replay_match(record)
    else:
        replay(check_hand_record(hands[0]))


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
        game = record_game(record)
    except WeimaqueError as exc:
        raise refuse("replay", str(exc)) from exc
    if game != DEFAULT_GAME:
        replay_game_hand(out, game, record, hand, seat, show_all)
        return
    try:
        viewer = parse_viewer(seat)
        check_record(record)
        check_replayable(record)
    except WeimaqueError as exc:
        raise refuse("replay", str(exc)) from exc
    except SLIPPED as exc:
        raise refuse("replay", f"not a record: {type(exc).__name__}: {exc}") from exc
    ask = None if show_all else (lambda prompt: out.input(prompt, markup=False))
    replayer = Replayer(out, viewer, ask)
    try:
        replayer.replay(record, hand)
    except QuitGame:
        return
    except WeimaqueError as exc:
        raise refuse("replay", str(exc)) from exc
    except SLIPPED as exc:
        raise refuse("replay", f"not a record: {type(exc).__name__}: {exc}") from exc


#: The viewers of a game of the seam: a seat, a spectator, or everything (a finished record).
GAME_VIEWERS: Final = ("all", "public")


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
    from weimaque.games import get_game

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
    replayer = Replayer(out, "all", ask)
    names = game.info.names
    replayer.say(f"━━ {names.zh} {names.en}  dealer 座{played.dealer}  (视角 view: {seat}) ━━")
    try:
        for view in views:
            if view is None:
                continue
            replayer.say(event_line(view))
            replayer.step()
    except QuitGame:
        return
    if outcome is not None:
        replayer.say(f"NET {list(outcome.net)}")
