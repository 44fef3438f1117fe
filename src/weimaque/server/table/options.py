"""The options a room is created with (``POST /api/rooms``, docs/protocol.md §1), checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from weimaque.errors import WeimaqueError, quoted
from weimaque.games.protocol import UnknownGame
from weimaque.games.registry import get_game

MAX_BOT_DELAY_MS: Final = 10_000
MAX_TURN_SECONDS: Final = 3600
#: The turn timer of a room that does not choose one: 托管 plays for a seat silent this long.
DEFAULT_TURN_SECONDS: Final = 20
#: Between hands: the next hand is dealt this long after the last one ended (``next_seconds``).
DEFAULT_NEXT_SECONDS: Final = 20
NEXT_SECONDS_RANGE: Final = (3, 600)
#: How long a vote to 解散 (and a 再来一局 window) stays open (``vote_seconds``).
DEFAULT_VOTE_SECONDS: Final = 60
VOTE_SECONDS_RANGE: Final = (5, 600)
#: A person's seat with no open connection this long is offline: 托管 plays it
#: (docs/protocol.md §3).
OFFLINE_GRACE_S: Final = 5.0

#: The game a room plays when its creator names none (every client before the game choice).
DEFAULT_GAME: Final = "maque"
#: The 偎麻雀 rule options a room may choose (docs/protocol.md §1), besides the 名堂 switches; a
#: room of another game may set any option of its game's schema (``GET /api/games``).
ROOM_OPTIONS: Final = (
    "min_xi",
    "wei_face_up",
    "holder_may_not_chi",
    "dealer_rotation",
    "first_dealer",
    "shouxing",
    "shouxing_liuju_reward",
    "shouxing_rotation",  # four persons, the 守醒 moving with the deal (RULES §2.1.1)
    "shouxing_sees",  # what the 守醒 may see (RULES §2.1.2)
    "liuzi",
    "liuzi_dealer",
    "liuzi_other",
    "deng_value",
    "liuzi_min_xi",
    "liuzi_when",  # when the 留子 pool is fed (RULES §8.5.1)
    "players",  # a table of two (RULES §2.5)
    "maipai",
    "chi_opponent_discard",
    "match_hands",
    "score_target",
)

#: Lists of 名堂 keys a room turns on (from the preset's optional ones) or off.
PATTERN_SWITCHES: Final = ("enable_patterns", "disable_patterns")


def _bounded(raw: dict[str, Any], name: str, default: int | None, low: int, high: int) -> Any:
    """An integer option within ``low..high`` (or null); booleans and other types refused."""
    value = raw.get(name, default)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise RoomError(
            "bad_request", f"{name} must be an integer {low}..{high} or null, not {quoted(value)}"
        )
    return value


class RoomError(WeimaqueError):
    """Bad room options (answered with HTTP 400)."""

    def __init__(self, code: str, message: str) -> None:
        """An error with a machine-readable code."""
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class RoomOptions:
    """What a room was created with (``POST /api/rooms``)."""

    preset: str = "anxiang"
    options: dict[str, Any] = field(default_factory=dict)
    bots: dict[int, str] = field(default_factory=dict)
    turn_seconds: int | None = DEFAULT_TURN_SECONDS
    autoplay_absent: bool = False
    bot_delay_ms: int = 400
    seed: int | None = None
    public: bool = False
    #: Seconds between a hand's end and the next deal; None: wait for the players (``next``).
    next_seconds: int | None = DEFAULT_NEXT_SECONDS
    #: Seconds a vote to 解散 and a 再来一局 window stay open.
    vote_seconds: int = DEFAULT_VOTE_SECONDS
    #: The 亲友圈 whose table this is (docs/protocol.md §7.5): seen by its members only. Set by
    #: the server (``POST /api/clubs/{id}/tables``), never by a request body.
    club: str | None = None
    #: The game's id (``weimaque.games``; a request may name it by an alias).
    game: str = DEFAULT_GAME

    @staticmethod
    def from_json(raw: Any, *, stored: bool = False) -> RoomOptions:
        """Check a JSON request body (``stored``: the stored form, which also names the room's
        club); raise ``RoomError`` quoting what is wrong."""
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise RoomError("bad_request", "the body must be a JSON object")
        known = {
            "preset",
            "options",
            "bots",
            "turn_seconds",
            "autoplay_absent",
            "bot_delay_ms",
            "seed",
            "public",
            "next_seconds",
            "vote_seconds",
            "game",
            "variant",
        }
        if stored:
            known.add("club")
        unknown = sorted(set(raw) - known)
        if unknown:
            raise RoomError("bad_request", f"unknown fields {unknown}; known: {sorted(known)}")
        game = game_id(raw.get("game", DEFAULT_GAME))
        if "preset" in raw and "variant" in raw:
            raise RoomError("bad_request", "name the preset once: preset or variant, not both")
        preset = raw.get("preset", raw.get("variant", default_preset(game)))
        if not isinstance(preset, str):
            raise RoomError("bad_request", f"preset must be a string, not {quoted(preset)}")
        options = raw.get("options") or {}
        if not isinstance(options, dict):
            raise RoomError("bad_options", f"options must be an object, not {quoted(options)}")
        if game == DEFAULT_GAME:
            bad = sorted(k for k in options if k not in (*ROOM_OPTIONS, *PATTERN_SWITCHES))
            if bad:
                raise RoomError(
                    "bad_options", f"a room may not set {bad}; it may set {ROOM_OPTIONS}"
                )
            for switch in PATTERN_SWITCHES:
                keys = options.get(switch, [])
                if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                    raise RoomError(
                        "bad_options", f"{switch} must be a list of keys: {quoted(keys)}"
                    )
        bots_raw = raw.get("bots") or {}
        if not isinstance(bots_raw, dict):
            raise RoomError(
                "bad_request", f"bots must be an object seat → kind, not {quoted(bots_raw)}"
            )
        bots: dict[int, str] = {}
        for key, kind in bots_raw.items():
            # The seat's range is the game's (``Setup.of`` checks it against the table's shape).
            text = str(key)
            if not (text.isdecimal() and len(text) <= 2) or not isinstance(kind, str):
                raise RoomError("bad_bots", f"bad bot seat {quoted(key)}: {quoted(kind)}")
            bots[int(text)] = kind
        turn = raw.get("turn_seconds", DEFAULT_TURN_SECONDS)
        if turn is not None and (
            not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= MAX_TURN_SECONDS
        ):
            raise RoomError(
                "bad_request",
                f"turn_seconds must be 1..{MAX_TURN_SECONDS} or null, not {quoted(turn)}",
            )
        absent = raw.get("autoplay_absent", False)
        if not isinstance(absent, bool):
            raise RoomError(
                "bad_request", f"autoplay_absent must be a boolean, not {quoted(absent)}"
            )
        delay = raw.get("bot_delay_ms", 400)
        if (
            not isinstance(delay, int)
            or isinstance(delay, bool)
            or not 0 <= delay <= MAX_BOT_DELAY_MS
        ):
            raise RoomError(
                "bad_request", f"bot_delay_ms must be 0..{MAX_BOT_DELAY_MS}, not {quoted(delay)}"
            )
        seed = raw.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise RoomError("bad_request", f"seed must be an integer or null, not {quoted(seed)}")
        public = raw.get("public", False)
        if not isinstance(public, bool):
            raise RoomError("bad_request", f"public must be a boolean, not {quoted(public)}")
        next_seconds = _bounded(raw, "next_seconds", DEFAULT_NEXT_SECONDS, *NEXT_SECONDS_RANGE)
        vote = raw.get("vote_seconds", DEFAULT_VOTE_SECONDS)
        low, high = VOTE_SECONDS_RANGE
        if not isinstance(vote, int) or isinstance(vote, bool) or not low <= vote <= high:
            raise RoomError(
                "bad_request", f"vote_seconds must be an integer {low}..{high}, not {quoted(vote)}"
            )
        club = raw.get("club")
        if club is not None and not isinstance(club, str):
            raise RoomError("bad_request", f"club must be a club id, not {quoted(club)}")
        return RoomOptions(
            preset,
            dict(options),
            bots,
            turn,
            absent,
            delay,
            seed,
            public,
            next_seconds,
            vote,
            club,
            game,
        )

    def to_json(self) -> dict[str, Any]:
        """Stored form."""
        return {
            "preset": self.preset,
            "options": self.options,
            "bots": {str(k): v for k, v in self.bots.items()},
            "turn_seconds": self.turn_seconds,
            "autoplay_absent": self.autoplay_absent,
            "bot_delay_ms": self.bot_delay_ms,
            "seed": self.seed,
            "public": self.public,
            "next_seconds": self.next_seconds,
            "vote_seconds": self.vote_seconds,
            **({} if self.club is None else {"club": self.club}),
            **({} if self.game == DEFAULT_GAME else {"game": self.game}),
        }


def game_id(name: object) -> str:
    """The id of the game a room names (an id or an alias, ``GET /api/games``); ``RoomError``
    ``bad_game`` quoting an unknown one."""
    try:
        return get_game(name).info.id  # type: ignore[arg-type]  # checked there, quoted
    except UnknownGame as exc:
        raise RoomError("bad_game", str(exc)) from exc


def default_preset(game: str) -> str:
    """The preset a room of ``game`` plays when it names none: 偎麻雀's ``anxiang`` (RULES §7.3),
    another game's first."""
    return "anxiang" if game == DEFAULT_GAME else get_game(game).schema.variants[0].id


def autoplay_bot_name(game: str = DEFAULT_GAME) -> str:
    """The 托管 bot: the first of the game's bots (``Game.bots``; 偎麻雀's ``greedy``)."""
    return get_game(game).bots[0].name


__all__ = [
    "DEFAULT_GAME",
    "DEFAULT_NEXT_SECONDS",
    "DEFAULT_TURN_SECONDS",
    "DEFAULT_VOTE_SECONDS",
    "MAX_BOT_DELAY_MS",
    "MAX_TURN_SECONDS",
    "NEXT_SECONDS_RANGE",
    "OFFLINE_GRACE_S",
    "PATTERN_SWITCHES",
    "ROOM_OPTIONS",
    "VOTE_SECONDS_RANGE",
    "RoomError",
    "RoomOptions",
    "autoplay_bot_name",
    "default_preset",
    "game_id",
    "quoted",
]
