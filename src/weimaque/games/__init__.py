"""The games the platform hosts, one package each, and the seam the platform speaks to them
through (docs/new-game.md): :mod:`.protocol` (what a game declares and how a hand is played)
and :mod:`.registry` (``register``, ``get_game``, ``list_games``, entry points in the group
``weimaque.games``). The platform imports only this level; the games load lazily.
"""

from weimaque.games.protocol import (
    BotInfo,
    Counter,
    Game,
    GameInfo,
    Hand,
    HandOutcome,
    Ledger,
    MatchPlay,
    Names,
    ObservationLayout,
    ObservationPiece,
    OptionSchema,
    OptionSpec,
    Playout,
    Resampling,
    SeatBot,
    TableShape,
    UnknownGame,
    Variant,
    View,
    Viewer,
    legal_mask,
)
from weimaque.games.registry import (
    ENTRY_POINT_GROUP,
    get_game,
    list_games,
    load_entry_points,
    register,
    unregister,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "BotInfo",
    "Counter",
    "Game",
    "GameInfo",
    "Hand",
    "HandOutcome",
    "Ledger",
    "MatchPlay",
    "Names",
    "ObservationLayout",
    "ObservationPiece",
    "OptionSchema",
    "OptionSpec",
    "Playout",
    "Resampling",
    "SeatBot",
    "TableShape",
    "UnknownGame",
    "Variant",
    "View",
    "Viewer",
    "get_game",
    "legal_mask",
    "list_games",
    "load_entry_points",
    "register",
    "unregister",
]
