"""偎麻雀's match at the terminal (``wmq play``) and its records stepped through (``wmq replay``).

The CLI owns the commands and their options (docs/terminal.md) and hands them here through the
seam's ``"terminal"`` capability (:class:`weimaque.games.protocol.Terminal`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from rich.console import Console

from weimaque.errors import RecordError, WeimaqueError
from weimaque.games.maque.bots import REGISTRY, Bot, get_bot, parse_params
from weimaque.games.maque.game.events import Viewer
from weimaque.games.maque.game.record import check_hand_record, replay
from weimaque.games.maque.match import Match, check_record_document, replay_match
from weimaque.games.maque.rules.registry import get_rules
from weimaque.games.maque.terminal.tui import QuitGame, Replayer, TerminalGame, record_hands
from weimaque.games.protocol import PlayRequest

DEFAULT_BOTS: Final = "greedy,mcts"
FALLBACK_BOT: Final = "random"
VIEWERS: Final = ("0", "1", "2", "shouxing", "all", "public")


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


def play_match(console: Console, ask: Callable[[str], str], request: PlayRequest) -> None:
    """A match at seat 0 against two bots (RULES §8.6), the record written to ``request.save``
    after every hand; ``q`` or the end of input stops it."""
    err = Console(stderr=True)
    config = get_rules(request.variant or "anxiang")
    if request.options:
        config = config.with_options(**dict(request.options))
    if request.hands is not None:
        config = config.with_options(match_hands=request.hands)
    if config.players != 3:  # the board seats a person and two bots (RULES §8.6)
        raise WeimaqueError(
            f"wmq play seats three players, not {config.players}: "
            "a two-player table (RULES §2.5) is played in a server room or the arena"
        )
    players = make_bots(request.bots, err)
    match = Match.new(config, request.seed)
    save = None if request.save is None else Path(request.save)

    def write(m: Match) -> None:
        if save is not None:
            save.write_text(json.dumps(m.record(), ensure_ascii=False, indent=1) + "\n", "utf-8")

    game = TerminalGame(
        console,
        ask,
        players,
        random.Random(request.seed),
        auto_pass=request.auto_pass,
        on_hand_end=write,
    )
    try:
        game.play_match(match)
    except QuitGame:
        console.print(f"\n已退出 (seed {request.seed})", highlight=False, markup=False)
    if save is not None:
        write(match)
        console.print(f"记录已存: {save}", highlight=False, markup=False)


def check_replayable(record: dict[str, Any]) -> None:
    """Replay the whole record before showing any of it: a bad one is refused up front."""
    is_match, hands = record_hands(record)
    if not hands:
        raise RecordError("the record holds no hand")
    if is_match:
        replay_match(record)
    else:
        replay(check_hand_record(hands[0]))


def replay_record(
    console: Console, ask: Callable[[str], str] | None, record: Any, hand: int | None, seat: str
) -> None:
    """Step through a hand or match record as ``seat`` sees it (docs/terminal.md), the whole
    record replayed first; ``q`` stops."""
    viewer = parse_viewer(seat)
    check_record_document(record)
    check_replayable(record)
    try:
        Replayer(console, viewer, ask).replay(record, hand)
    except QuitGame:
        return


__all__ = [
    "DEFAULT_BOTS",
    "FALLBACK_BOT",
    "VIEWERS",
    "check_replayable",
    "make_bots",
    "parse_viewer",
    "play_match",
    "replay_record",
]
