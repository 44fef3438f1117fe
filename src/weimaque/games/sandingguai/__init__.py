"""三丁拐 with 捉鸡: the rules engine of the platform's second game (docs/sandingguai.md).

A self-contained package: it imports :mod:`weimaque.errors`, the rule-data helpers every game
shares (:mod:`weimaque.presets`), the standard library and numpy, nothing else of weimaque.
``SDG §x.y`` in comments and messages cites the specification SANDINGGUAI.md;
docs/sandingguai.md is the rule book in the project's words.

>>> from weimaque.games.sandingguai import State, get_rules
>>> state = State(get_rules("sandingguai"), seed=7)
>>> state.current_player(), len(state.legal_actions()) > 0
(0, True)
"""

from weimaque.games.sandingguai.actions import NUM_ACTIONS, Action
from weimaque.games.sandingguai.hands import Score, WinContext, context, hu_verdict, score, waits
from weimaque.games.sandingguai.match import Match, play_match
from weimaque.games.sandingguai.notation import (
    HandDescription,
    Meld,
    MeldKind,
    TableDescription,
    format_tiles,
    parse_hand,
    parse_table,
    parse_tiles,
)
from weimaque.games.sandingguai.observation import OBS_SIZE, View, observation_array, observe
from weimaque.games.sandingguai.record import hand_record, replay
from weimaque.games.sandingguai.rules import PRESET_IDS, RuleConfig, get_rules
from weimaque.games.sandingguai.settle import Settlement, Transfer, settle
from weimaque.games.sandingguai.state import TERMINAL, HandResult, State, stack_deck

__all__ = [
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PRESET_IDS",
    "TERMINAL",
    "Action",
    "HandDescription",
    "HandResult",
    "Match",
    "Meld",
    "MeldKind",
    "RuleConfig",
    "Score",
    "Settlement",
    "State",
    "TableDescription",
    "Transfer",
    "View",
    "WinContext",
    "context",
    "format_tiles",
    "get_rules",
    "hand_record",
    "hu_verdict",
    "observation_array",
    "observe",
    "parse_hand",
    "parse_table",
    "parse_tiles",
    "play_match",
    "replay",
    "score",
    "settle",
    "stack_deck",
    "waits",
]
