"""The options a room is created with (``POST /api/rooms``, docs/protocol.md §1), checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from weimaque.bots import REGISTRY
from weimaque.errors import WeimaqueError

MAX_BOT_DELAY_MS: Final = 10_000
MAX_TURN_SECONDS: Final = 3600
#: The turn timer of a room that does not choose one: 托管 plays for a seat silent this long.
DEFAULT_TURN_SECONDS: Final = 20
#: In a room without a timer, a seat with no open connection is played by 托管 after this long.
ABSENT_SECONDS: Final = 30

#: The rule options a room may choose (docs/protocol.md §1), besides the 名堂 switches.
ROOM_OPTIONS: Final = (
    "min_xi",
    "wei_face_up",
    "holder_may_not_chi",
    "dealer_rotation",
    "first_dealer",
    "shouxing",
    "shouxing_liuju_reward",
    "liuzi",
    "liuzi_dealer",
    "liuzi_other",
    "deng_value",
    "liuzi_min_xi",
    "match_hands",
    "score_target",
)

#: Lists of 名堂 keys a room turns on (from the preset's optional ones) or off.
PATTERN_SWITCHES: Final = ("enable_patterns", "disable_patterns")


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

    @staticmethod
    def from_json(raw: Any) -> RoomOptions:
        """Check a JSON request body; raise ``RoomError`` quoting what is wrong."""
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
        }
        unknown = sorted(set(raw) - known)
        if unknown:
            raise RoomError("bad_request", f"unknown fields {unknown}; known: {sorted(known)}")
        preset = raw.get("preset", "anxiang")
        if not isinstance(preset, str):
            raise RoomError("bad_request", f"preset must be a string, not {preset!r}")
        options = raw.get("options") or {}
        if not isinstance(options, dict):
            raise RoomError("bad_options", f"options must be an object, not {options!r}")
        bad = sorted(k for k in options if k not in (*ROOM_OPTIONS, *PATTERN_SWITCHES))
        if bad:
            raise RoomError("bad_options", f"a room may not set {bad}; it may set {ROOM_OPTIONS}")
        for switch in PATTERN_SWITCHES:
            keys = options.get(switch, [])
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                raise RoomError("bad_options", f"{switch} must be a list of keys: {keys!r}")
        bots_raw = raw.get("bots") or {}
        if not isinstance(bots_raw, dict):
            raise RoomError("bad_request", f"bots must be an object seat → kind, not {bots_raw!r}")
        bots: dict[int, str] = {}
        for key, kind in bots_raw.items():
            if str(key) not in ("0", "1", "2") or not isinstance(kind, str):
                raise RoomError("bad_bots", f"bad bot seat {key!r}: {kind!r}")
            bots[int(key)] = kind
        turn = raw.get("turn_seconds", DEFAULT_TURN_SECONDS)
        if turn is not None and (
            not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= MAX_TURN_SECONDS
        ):
            raise RoomError("bad_request", f"turn_seconds must be 1..{MAX_TURN_SECONDS} or null")
        absent = raw.get("autoplay_absent", False)
        if not isinstance(absent, bool):
            raise RoomError("bad_request", f"autoplay_absent must be a boolean, not {absent!r}")
        delay = raw.get("bot_delay_ms", 400)
        if (
            not isinstance(delay, int)
            or isinstance(delay, bool)
            or not 0 <= delay <= MAX_BOT_DELAY_MS
        ):
            raise RoomError("bad_request", f"bot_delay_ms must be 0..{MAX_BOT_DELAY_MS}")
        seed = raw.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise RoomError("bad_request", f"seed must be an integer or null, not {seed!r}")
        public = raw.get("public", False)
        if not isinstance(public, bool):
            raise RoomError("bad_request", f"public must be a boolean, not {public!r}")
        return RoomOptions(preset, dict(options), bots, turn, absent, delay, seed, public)

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
        }


def autoplay_bot_name() -> str:
    """The 托管 bot: ``greedy`` when the server has it, else ``random``."""
    return "greedy" if "greedy" in REGISTRY else "random"


__all__ = [
    "ABSENT_SECONDS",
    "DEFAULT_TURN_SECONDS",
    "MAX_BOT_DELAY_MS",
    "MAX_TURN_SECONDS",
    "PATTERN_SWITCHES",
    "ROOM_OPTIONS",
    "RoomError",
    "RoomOptions",
    "autoplay_bot_name",
]
