"""偎麻雀 behind the game protocol (:mod:`weimaque.games.protocol`, docs/new-game.md).

A thin adapter over the engine where it lives today (``weimaque.rules``, ``weimaque.game``,
``weimaque.match``, ``weimaque.bots``): the option schema is read off :class:`RuleConfig`'s fields
and ranges (labels are this module's data), every preset of RULES §7.3 is a variant with the
table of RULES §2.2 (three seats, the dealer 20 cards, the others 19, a stock of 22), a
:class:`MaqueHand` forwards to :class:`GameState` with actions as their fixed ids
(:mod:`weimaque.game.actions`), views come from :mod:`weimaque.game.observation`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from weimaque.bots import get_bot
from weimaque.bots.base import Bot, BotView
from weimaque.bots.determinize import determinize
from weimaque.bots.greedy import GreedyBot
from weimaque.cards import NUM_FACES, faces_str
from weimaque.errors import IllegalAction, RecordError, quoted
from weimaque.game.actions import NUM_ACTIONS, Action
from weimaque.game.events import Event
from weimaque.game.observation import (
    OBS_SIZE,
    Observation,
    answered_view,
    dealt_view,
    observation_array,
    settled,
    view_of,
)
from weimaque.game.record import hand_record, replay
from weimaque.game.state import DEALER_CARDS, NUM_SEATS, STOCK_SIZE, GameState
from weimaque.games.protocol import (
    BASE_COUNTERS,
    JSON,
    BotInfo,
    Counter,
    Game,
    GameInfo,
    HandOutcome,
    Ledger,
    Names,
    ObservationLayout,
    ObservationPiece,
    OptionSchema,
    OptionSpec,
    TableShape,
    Variant,
    Viewer,
    base_counts,
)
from weimaque.match import Match
from weimaque.rules.config import _CHOICES, OPTION_NAMES, OPTION_RANGES, PATTERN_NAMES, RuleConfig
from weimaque.rules.registry import list_rules, rules_with

#: The label of every option (RULES §7.3, docs/rules.md), in both languages.
LABELS: Final[Mapping[str, tuple[str, str]]] = {
    "min_xi": ("起胡息数", "least 息 to win"),
    "maque_zhuanwan_black": ("麻雀转弯黑牌", "black cards of a turning 麻雀"),
    "tuanyuan_any_grouping": ("团圆任意组合", "团圆 in any grouping"),
    "wei_face_up": ("明偎", "偎 face up"),
    "holder_may_not_chi": ("有对不吃", "a seat holding two may not 吃 that face"),
    "first_dealer": ("首局庄家", "first dealer"),
    "dealer_rotation": ("轮庄", "dealer rotation"),
    "shouxing": ("守醒", "a 守醒 sits out and shares"),
    "shouxing_divisor": ("守醒分成", "the 守醒's share: total divided by"),
    "shouxing_liuju_reward": ("守醒臭庄奖", "the 守醒's reward on a 臭 hand"),
    "liuzi": ("留子", "留子 pool"),
    "liuzi_dealer": ("庄家留子", "the dealer's 留子 stake"),
    "liuzi_other": ("闲家留子", "the others' 留子 stake"),
    "liuzi_min_xi": ("留子起等息数", "息 of the first 等"),
    "deng_value": ("每等分", "value of one 等"),
    "match_hands": ("局数", "hands in a match"),
    "score_target": ("目标分", "score that ends the match (0: none)"),
    "mingtang_rules": ("名堂规则", "名堂 as the seed texts or the apps read them"),
    "enable_patterns": ("启用名堂", "名堂 turned on"),
    "disable_patterns": ("停用名堂", "名堂 turned off"),
}
#: Every action by id, made once.
ACTIONS: Final = tuple(Action.from_id(i) for i in range(NUM_ACTIONS))
#: Each action's id (``Action.id`` computes it; the hot path looks it up).
IDS: Final = {a: a.id for a in ACTIONS}
#: RULES §2.2: the dealer 20 cards, the others 19, 22 in the stock, of 80.
SHAPE: Final = TableShape(
    NUM_SEATS,
    (DEALER_CARDS,) + (DEALER_CARDS - 1,) * (NUM_SEATS - 1),
    STOCK_SIZE,
    STOCK_SIZE + DEALER_CARDS + (DEALER_CARDS - 1) * (NUM_SEATS - 1),
)
_DEFAULTS: Final = RuleConfig()
_GREEDY: Final = GreedyBot()


def _spec(key: str) -> OptionSpec:
    label = Names(*LABELS[key])
    default = getattr(_DEFAULTS, key)
    if key in _CHOICES:
        return OptionSpec(key, "choice", default, label, choices=_CHOICES[key])
    if isinstance(default, bool):
        return OptionSpec(key, "bool", default, label)
    low, high = OPTION_RANGES[key]
    return OptionSpec(key, "int", default, label, low, high)


def _variant(rules: RuleConfig) -> Variant:
    return Variant(
        rules.id,
        Names(rules.name, rules.name_en),
        SHAPE,
        rules.aliases,
        {k: v for k, v in rules.options().items() if isinstance(v, (bool, int, str))},
        rules.description,
    )


_PATTERN_KEYS: Final = tuple(PATTERN_NAMES)
SCHEMA: Final = OptionSchema(
    (
        *(_spec(k) for k in OPTION_NAMES),
        OptionSpec(
            "enable_patterns", "keys", (), Names(*LABELS["enable_patterns"]), choices=_PATTERN_KEYS
        ),
        OptionSpec(
            "disable_patterns",
            "keys",
            (),
            Names(*LABELS["disable_patterns"]),
            choices=_PATTERN_KEYS,
        ),
    ),
    tuple(_variant(r) for r in list_rules(app=True)),
)
_F: Final = NUM_FACES
#: The flat array's pieces (the block table of :mod:`weimaque.game.observation`), with shapes.
LAYOUT: Final = ObservationLayout(
    tuple(
        ObservationPiece(name, shape)
        for name, shape in (
            ("hand", (_F,)),
            ("melds_visible", (3, _F)),
            ("wei_hidden", (3,)),
            ("rows", (3, _F)),
            ("dead", (3,)),
            ("stock", (1,)),
            ("dealer", (3,)),
            ("phase", (3,)),
            ("claim_card", (_F,)),
            ("claim_origin", (5,)),
            ("claim_from", (3,)),
            ("to_act", (1,)),
            ("legal", (NUM_ACTIONS,)),
            ("ban_discard", (3, _F)),
            ("ban_chi", (3, _F)),
            ("ban_peng", (_F,)),
        )
    )
)
assert LAYOUT.size == OBS_SIZE


def _action(action: object) -> Action:
    if type(action) is int and 0 <= action < NUM_ACTIONS:
        return ACTIONS[action]
    raise IllegalAction(f"an action is an id 0..{NUM_ACTIONS - 1}, not {quoted(action)}")


class MaqueHand:
    """One 偎麻雀 hand behind :class:`~weimaque.games.protocol.Hand`."""

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    @property
    def seed(self) -> int | None:
        """The deal's seed (None for an explicit deal)."""
        return self.state.seed

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self.state.dealer

    def to_act(self) -> tuple[int, ...]:
        """Every seat still to decide (RULES §3)."""
        return self.state.to_act()

    def in_window(self) -> bool:
        """A claim window: the seats decide unseen, resolved by priority (RULES §5.1)."""
        return self.state.phase == "claim"

    def settled(self, viewer: Viewer) -> bool:
        """RULES §3.1.5, docs/protocol.md §2.3 (:func:`weimaque.game.observation.settled`)."""
        return settled(self.state, viewer)

    def opening_view(self, viewer: Viewer) -> Observation:
        """What a viewer the deal's window keeps waiting is shown (``dealt_view``)."""
        return dealt_view(self.state, viewer)

    def legal_actions(self, seat: int) -> tuple[int, ...]:
        """Legal action ids of ``seat``, sorted."""
        ids = IDS
        # A discard's id is its face (weimaque.game.actions): no lookup on the common path.
        legal = [
            a.face if a.kind == "discard" and a.face is not None else ids[a]
            for a in self.state.legal_actions(seat)
        ]
        return tuple(sorted(legal))

    def verify(self, seat: int, action: int) -> None:
        """Raise ``IllegalAction`` naming the rule."""
        self.state.verify(seat, _action(action))

    def apply(self, seat: int, action: int) -> tuple[Event, ...]:
        """Take the action; its events."""
        return tuple(self.state.apply(seat, _action(action)))

    def events(self) -> tuple[Event, ...]:
        """Every event so far."""
        return tuple(self.state.events)

    def is_terminal(self) -> bool:
        """Whether the hand is over."""
        return self.state.is_terminal()

    def outcome(self) -> HandOutcome | None:
        """Each loser pays the winner his total (RULES §8.3); 臭 moves nothing."""
        r = self.state.result
        if r is None:
            return None
        summary = {
            "chou": r.chou,
            "source": r.source,
            "origin": r.origin,
            "card": None if r.card is None else faces_str((r.card,)),
            "deal_pattern": r.deal_pattern,
            "total": 0 if r.breakdown is None else r.breakdown.total,
        }
        winners = () if r.winner is None else (r.winner,)
        return HandOutcome(tuple(self.state.returns()), winners, summary)

    def view(self, viewer: Viewer) -> Observation:
        """The view of a seat, a spectator or an all-seeing record (``view_of``)."""
        return view_of(self.state, viewer)

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """The seat's flat array (:data:`LAYOUT`)."""
        return observation_array(self.state, seat)

    def bot_view(self, seat: int) -> BotView:
        """What the bots of :mod:`weimaque.bots` read."""
        return BotView.of(self.state, seat)

    def deal(self) -> JSON:
        """The deal as dealt: the three hands and the stock in draw order (RULES §2.2)."""
        return {
            "dealer": self.state.dealer,
            "hands": [faces_str(h) for h in self.state.initial_hands],
            "stock": faces_str(self.state.stock),
        }

    def record(self) -> JSON:
        """The hand's record (:func:`weimaque.game.record.hand_record`)."""
        return hand_record(self.state)

    def clone(self) -> MaqueHand:
        """An independent copy, its events and actions kept (``GameState.copy`` drops them)."""
        other = self.state.copy()
        other.events = list(self.state.events)
        other.actions = list(self.state.actions)
        return MaqueHand(other)

    def resample(self, seat: int, rng: random.Random) -> MaqueHand:
        """A position consistent with ``seat``'s view (:func:`weimaque.bots.determinize`)."""
        return MaqueHand(determinize(BotView.of(self.state, seat), rng))


class MaqueMatch:
    """A match (RULES §8) behind :class:`~weimaque.games.protocol.MatchPlay`."""

    __slots__ = ("match",)

    def __init__(self, match: Match) -> None:
        self.match = match

    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.match.is_over()

    def next_hand(self) -> MaqueHand:
        """Deal the next hand."""
        return MaqueHand(self.match.start_hand())

    def finish(self, hand: Any) -> tuple[int, ...]:
        """Settle the finished hand; each seat's change."""
        if not isinstance(hand, MaqueHand) or hand.state is not self.match.current:
            raise IllegalAction("finish() takes the current hand, once it is over")
        return self.match.finish_hand().seats

    def ledger(self) -> Ledger:
        """Seats, 守醒 and 留子 pool: they sum to zero (RULES §8)."""
        m = self.match
        return Ledger(tuple(m.scores), {"shouxing": m.shouxing, "pool": m.pool})


#: The bots offered in rooms (docs/bots.md); ``bot()`` also builds the arena's research bots
#: and ``cmd:COMMAND`` (:func:`weimaque.bots.get_bot`).
BOTS: Final = (
    BotInfo(
        "greedy",
        Names("贪心", "greedy"),
        Names("估算每张牌的息与胡牌机会", "rates each card by 息 and chances to win"),
    ),
    BotInfo(
        "random",
        Names("随机", "random"),
        Names("随机选一个合法动作", "a uniformly random legal action"),
    ),
    BotInfo(
        "mcts",
        Names("搜索", "search"),
        Names("在与所见一致的牌局中模拟", "simulates deals consistent with its view"),
        slow=True,
    ),
    BotInfo(
        "policy",
        Names("策略", "policy"),
        Names("模仿搜索的线性策略", "a linear policy trained on the search bot"),
        slow=True,
    ),
)


@dataclass(frozen=True, slots=True)
class _SeatBot:
    """A 偎麻雀 bot (:class:`weimaque.bots.Bot`) answering with action ids."""

    bot: Bot

    def act(self, view: Any, rng: random.Random) -> int:
        """The bot's action, as its id."""
        return IDS[self.bot.act(view, rng)]


class Maque:
    """The 偎麻雀 game object (registered as ``maque``)."""

    info: Final = GameInfo(
        "maque",
        Names("偎麻雀", "Weimaque"),
        ("weimaque", "偎麻雀", "anxiang-maque"),
        zero_sum=True,
        capabilities=frozenset({"resample", "playout"}),
    )
    schema: Final = SCHEMA
    layout: Final = LAYOUT
    num_actions: Final = NUM_ACTIONS
    counters: Final = (*BASE_COUNTERS, Counter("zimo", Names("自摸", "self-drawn wins")))
    bots: Final = BOTS

    def bot(self, spec: str, variant: str, options: Mapping[str, object] | None = None) -> _SeatBot:
        """A bot by spec: ``greedy``, ``mcts:ms=300``, ``cmd:COMMAND`` … (``get_bot``); its
        view carries the rules, which are checked here."""
        self.rules(variant, options)
        return _SeatBot(get_bot(spec))

    def rules(self, variant: str, options: Mapping[str, object] | None = None) -> RuleConfig:
        """The rule set of a preset with options, checked against the schema."""
        base = self.schema.variant(variant)
        checked: dict[str, object] = dict(self.schema.validate(options or {}))
        for key in ("enable_patterns", "disable_patterns"):
            value = checked.get(key)
            if isinstance(value, tuple):
                checked[key] = list(value)
        return rules_with(base.id, checked)

    def shape(self, variant: str, options: Mapping[str, object] | None = None) -> TableShape:
        """RULES §2.2: every preset plays the same table."""
        self.rules(variant, options)
        return SHAPE

    def new_hand(
        self,
        variant: str,
        options: Mapping[str, object] | None = None,
        seed: int = 0,
        dealer: int = 0,
    ) -> MaqueHand:
        """Deal a hand (RULES §2.2 [D])."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise IllegalAction(f"seed must be an int, not {quoted(seed)}")
        return MaqueHand(GameState.new(self.rules(variant, options), seed, dealer))

    def new_match(
        self, variant: str, options: Mapping[str, object] | None = None, seed: int = 0
    ) -> MaqueMatch:
        """A match."""
        return MaqueMatch(Match.new(self.rules(variant, options), seed))

    def replay(self, record: object) -> MaqueHand:
        """Replay a record (``RecordError`` quoting what is wrong)."""
        if not isinstance(record, dict):
            raise RecordError(f"a hand record is a JSON object, not {quoted(record)}")
        return MaqueHand(replay(record))

    def action(self, action_id: int) -> Action:
        """The action with this id."""
        return _action(action_id)

    def parse_action(self, text: str) -> Action:
        """Parse ``出三``, ``碰``, ``吃一二三``, ``胡``, ``过`` …"""
        return Action.parse(text)

    def answered(self, view: Any, action: int) -> Observation:
        """A seat's view once it answered (``answered_view``, docs/protocol.md §2.3)."""
        if not isinstance(view, Observation):
            raise TypeError(f"not a 偎麻雀 view: {view!r}")
        return answered_view(view, _action(action))

    def playout(self, hand: Any, seat: int, rng: random.Random) -> int:
        """The ``greedy`` bot's choice (:mod:`weimaque.bots.greedy`), from the seat's view."""
        if not isinstance(hand, MaqueHand):
            raise TypeError(f"not a 偎麻雀 hand: {hand!r}")
        return IDS[_GREEDY.act(hand.bot_view(seat), rng)]

    def counts(self, outcome: HandOutcome) -> tuple[dict[str, int], ...]:
        """Hands, wins, points and 自摸 per seat."""
        out = base_counts(outcome, NUM_SEATS)
        for seat, row in enumerate(out):
            row["zimo"] = int(seat in outcome.winners and outcome.summary.get("source") == "self")
        return tuple(out)


GAME: Final[Game] = Maque()

__all__ = ["GAME", "LAYOUT", "SCHEMA", "SHAPE", "MaqueHand", "MaqueMatch"]
