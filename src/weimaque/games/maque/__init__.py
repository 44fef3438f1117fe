"""偎麻雀 behind the game protocol (:mod:`weimaque.games.protocol`, docs/new-game.md).

A thin adapter over the engine where it lives today (``weimaque.games.maque.rules``,
``weimaque.games.maque.game``, ``weimaque.games.maque.match``, ``weimaque.games.maque.bots``): the
option schema is read off :class:`RuleConfig`'s fields and ranges (labels are this module's data),
every preset of RULES §7.3 and §7.4 is a variant with the table of RULES §2.2 (three seats, the
dealer 20 cards, the others 19, a stock of 22) and the two-player presets of RULES §2.5 one with two
seats (20 and 19, a stock of 22 or 41: the shape follows the options too), a
:class:`MaqueHand` forwards to :class:`GameState` with actions as their fixed ids
(:mod:`weimaque.games.maque.game.actions`), views come from
:mod:`weimaque.games.maque.game.observation`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from weimaque.errors import IllegalAction, RecordError, RuleConfigError, quoted
from weimaque.games.fairness import Verified
from weimaque.games.maque.bots import check_spec, get_bot
from weimaque.games.maque.bots.base import Bot, BotView
from weimaque.games.maque.bots.determinize import determinize
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.cards import NUM_FACES, faces_str
from weimaque.games.maque.game.actions import NUM_ACTIONS, Action
from weimaque.games.maque.game.events import Event
from weimaque.games.maque.game.observation import (
    OBS_SIZE,
    Observation,
    answered_view,
    dealt_view,
    observation_array,
    settled,
    shouxing_viewer,
    view_of,
)
from weimaque.games.maque.game.record import hand_record, replay
from weimaque.games.maque.game.state import DEALER_CARDS, GameState, buried_size, stock_size
from weimaque.games.maque.lobby import presets_info
from weimaque.games.maque.match import MATCH_VERSION, PERSONS, Match
from weimaque.games.maque.numbers import (
    HintCache,
    hand_end_json,
    hints,
    replay_steps,
    table_xi,
)
from weimaque.games.maque.rules.config import (
    _CHOICES,
    OPTION_NAMES,
    OPTION_RANGES,
    PATTERN_NAMES,
    RuleConfig,
)
from weimaque.games.maque.rules.registry import get_rules, list_rules, overrides_of, rules_with
from weimaque.games.maque.tidyrequest import tidy_request
from weimaque.games.maque.verify import verify_document
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
    Terminal,
    Variant,
    Viewer,
    base_counts,
)

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
    "players": ("人数", "players"),
    "maipai": ("埋牌", "bury the third hand (stock 22; off: 41)"),
    "chi_opponent_discard": ("吃对家出牌", "吃 of the opponent's discards"),
    "liuzi_when": ("逗溜子时机", "when the 留子 pool is fed"),
    "liuzi_choice": ("留子择优", "the winning layout chosen with the 留子 counted in"),
    "hand_cap": ("封顶", "most a loser pays for one hand (0: none)"),
    "final_double_below": ("少于翻倍", "double a final score below this (0: off)"),
    "final_double_ratio": ("翻倍倍数", "the final doubling's factor"),
    "final_bonus_below": ("低于加分", "add points to a final score below this (0: off)"),
    "final_bonus": ("加分", "the points added"),
    "shouxing_rotation": ("四人轮守醒", "four persons, the 守醒 moving with the deal"),
    "shouxing_sees": ("守醒看牌", "the hands the 守醒 may see: all three, or the dealer's"),
    "enable_patterns": ("启用名堂", "名堂 turned on"),
    "disable_patterns": ("停用名堂", "名堂 turned off"),
}
#: Every action by id, made once.
ACTIONS: Final = tuple(Action.from_id(i) for i in range(NUM_ACTIONS))
#: Each action's id (``Action.id`` computes it; the hot path looks it up).
IDS: Final = {a: a.id for a in ACTIONS}
#: Whether each action id is a 出 (``public_action``, asked of every action a server applies).
_DISCARDS: Final = tuple(a.kind == "discard" for a in ACTIONS)


def shape_of(rules: RuleConfig) -> TableShape:
    """RULES §2.2, §2.5.2: the dealer 20 cards, the others 19, the stock (22, or 41 with two
    players and the third hand added), of 80 (with two players and 埋牌, 19 stay buried); with
    a rotating 守醒 four persons at the table (RULES §2.1.1)."""
    seats = rules.players
    deal = (DEALER_CARDS,) + (DEALER_CARDS - 1,) * (seats - 1)
    stock = stock_size(rules)
    persons = PERSONS if rules.shouxing_rotation else 0
    return TableShape(seats, deal, stock, sum(deal) + stock + buried_size(rules), persons)


#: RULES §2.2: the three-player table, the dealer 20 cards, the others 19, 22 in the stock, of 80.
SHAPE: Final = shape_of(RuleConfig())
_DEFAULTS: Final = RuleConfig()
_GREEDY: Final = GreedyBot()


#: Each choice of a choice option in both languages, as a form shows it.
CHOICE_NAMES: Final[Mapping[str, Mapping[str, tuple[str, str]]]] = {
    "dealer_rotation": {
        "keep_or_next": ("庄胡连庄，否则下家", "the dealer keeps on a win, else 下家"),
        "winner_deals": ("谁胡谁坐庄", "the winner deals"),
    },
    "first_dealer": {"seat0": ("1号位", "seat 1"), "random": ("随机", "random")},
    "mingtang_rules": {
        "seed": ("原版名堂", "the seed texts' 名堂"),
        "app": ("app 名堂", "the apps' 名堂"),
    },
    "liuzi_when": {
        "deal": ("每局开始前", "before every deal"),
        "chou": ("臭局后", "after a 臭 hand"),
        "start_and_chou": ("开局和臭局后", "at the start and after a 臭 hand"),
    },
    "shouxing_sees": {
        "all": ("看三家", "all three hands"),
        "dealer": ("只看庄家", "the dealer's hand only"),
    },
}


def _spec(key: str) -> OptionSpec:
    label = Names(*LABELS[key])
    default = getattr(_DEFAULTS, key)
    if key in _CHOICES:
        names = tuple(Names(*CHOICE_NAMES[key][c]) for c in _CHOICES[key])
        return OptionSpec(key, "choice", default, label, choices=_CHOICES[key], choice_names=names)
    if isinstance(default, bool):
        return OptionSpec(key, "bool", default, label)
    low, high = OPTION_RANGES[key]
    return OptionSpec(key, "int", default, label, low, high)


def _variant(rules: RuleConfig) -> Variant:
    return Variant(
        rules.id,
        Names(rules.name, rules.name_en),
        shape_of(rules),
        rules.aliases,
        {k: v for k, v in rules.options().items() if isinstance(v, (bool, int, str))},
        rules.description,
        rules.description_zh,
    )


#: The two-player tables the seam lists as variants (RULES §2.5): a preset with ``players = 2``.
#: They are no rule presets (RULES-VARIANTS V1: ``players`` is a room option of every preset);
#: they name the two-player table where a list of variants is all a client chooses from (the
#: conformance kit, the arena, the environments).
TWO_PLAYER_BASES: Final = {"anxiang-2p": "anxiang", "quanmingtang-2p": "quanmingtang"}


def _two_player(base: RuleConfig) -> Variant:
    rules = rules_with(base.id, {"players": 2})
    return Variant(
        f"{base.id}-2p",
        Names(f"{base.name} 二人", f"{base.name_en}, two players"),
        shape_of(rules),
        (),
        {k: v for k, v in rules.options().items() if isinstance(v, (bool, int, str))},
        f"{base.description} At a table of two (RULES §2.5).",
        f"{base.description_zh}二人对局（RULES §2.5）。",
    )


def base_and_options(
    variant: str, options: Mapping[str, object] | None
) -> tuple[str, dict[str, object]]:
    """The rule preset under a variant id or alias, and the options with the variant's own."""
    base = TWO_PLAYER_BASES.get(variant)
    if base is None:
        return variant, dict(options or {})
    return base, {"players": 2, **dict(options or {})}


_PATTERN_KEYS: Final = tuple(PATTERN_NAMES)
#: A 名堂 is named in Chinese in both languages (docs/rules.md names them so).
_PATTERN_NAMES: Final = tuple(Names(PATTERN_NAMES[k], PATTERN_NAMES[k]) for k in _PATTERN_KEYS)
SCHEMA: Final = OptionSchema(
    (
        *(_spec(k) for k in OPTION_NAMES),
        *(
            OptionSpec(
                key,
                "keys",
                (),
                Names(*LABELS[key]),
                choices=_PATTERN_KEYS,
                choice_names=_PATTERN_NAMES,
            )
            for key in ("enable_patterns", "disable_patterns")
        ),
    ),
    (
        *(_variant(r) for r in list_rules(app=True)),
        *(_two_player(get_rules(base)) for base in TWO_PLAYER_BASES.values()),
    ),
)
_F: Final = NUM_FACES
#: The flat array's pieces (the block table of :mod:`weimaque.games.maque.game.observation`), with
#: shapes: one layout for every table, three seat blocks, the third left empty at a two-player table
#: (RULES §2.5), so an environment keeps one observation space for the game.
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

    __slots__ = ("_events", "_source", "_views", "_views_at", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state
        #: ``events()`` as last made, and the engine's list it was made of (which only grows).
        self._events: tuple[Event, ...] = ()
        self._source: list[Event] | None = None
        #: The views made of the position now, by viewer, and that position: the engine's
        #: action log (every change of a hand is an action logged) and its length.
        self._views: dict[Viewer, Observation] = {}
        self._views_at: tuple[list[tuple[int, Action]] | None, int] = (None, 0)

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
        """RULES §3.1.5, docs/protocol.md §2.3
        (:func:`weimaque.games.maque.game.observation.settled`)."""
        # Outside a claim window every viewer is settled (asked of every viewer per action).
        return self.state.phase != "claim" or settled(self.state, viewer)

    def opening_view(self, viewer: Viewer) -> Observation:
        """What a viewer the deal's window keeps waiting is shown (``dealt_view``)."""
        return dealt_view(self.state, viewer)

    def legal_actions(self, seat: int) -> tuple[int, ...]:
        """Legal action ids of ``seat``, sorted."""
        ids = IDS
        # A discard's id is its face (weimaque.games.maque.game.actions): no lookup on the common
        # path.
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
        """Every event so far (made once per change: a server asks several times an action)."""
        source = self.state.events
        made = self._events
        if source is not self._source or len(made) != len(source):
            made = self._events = tuple(source)
            self._source = source
        return made

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
        """The view of a seat, a spectator or an all-seeing record (``view_of``).

        A view is immutable and made once per position and viewer: a server asks for a seat's
        view after each action, and again for the answer to the seat's next action (an ``ack``,
        docs/protocol.md §2.1), with nothing changed in between. A finished hand's is made
        afresh (its match books it).
        """
        state = self.state
        actions = state.actions
        if state.phase == "over" or type(viewer) not in (int, str):
            return view_of(state, viewer)
        views = self._views
        at = self._views_at
        if at[0] is not actions or at[1] != len(actions):
            views.clear()
            self._views_at = (actions, len(actions))
        found = views.get(viewer)
        if found is None:
            found = views[viewer] = view_of(state, viewer)
        return found

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """The seat's flat array (:data:`LAYOUT`)."""
        return observation_array(self.state, seat)

    def bot_view(self, seat: int) -> BotView:
        """What the bots of :mod:`weimaque.games.maque.bots` read."""
        return BotView.of(self.state, seat)

    def deal(self) -> JSON:
        """The deal as dealt: the hands and the stock in draw order (RULES §2.2), and with two
        players and 埋牌 the buried cards (RULES §2.5.2)."""
        out: JSON = {
            "dealer": self.state.dealer,
            "hands": [faces_str(h) for h in self.state.initial_hands],
            "stock": faces_str(self.state.stock),
        }
        if self.state.buried:
            out["buried"] = faces_str(self.state.buried)
        return out

    def record(self) -> JSON:
        """The hand's record (:func:`weimaque.games.maque.game.record.hand_record`)."""
        return hand_record(self.state)

    def clone(self) -> MaqueHand:
        """An independent copy, its events and actions kept (``GameState.copy`` drops them)."""
        other = self.state.copy()
        other.events = list(self.state.events)
        other.actions = list(self.state.actions)
        return MaqueHand(other)

    def resample(self, seat: int, rng: random.Random) -> MaqueHand:
        """A position consistent with ``seat``'s view
        (:func:`weimaque.games.maque.bots.determinize`)."""
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

    def seat_persons(self) -> tuple[int, ...]:
        """The ``"rotation"`` capability (RULES §2.1.1): the persons at seats 0, 1, 2 of the
        hand in progress or the next (the dealer person D, D+1, D+3; D+2 sits out as 守醒);
        the seats themselves at a table without a rotating 守醒."""
        return self.match.persons()

    def ledger(self) -> Ledger:
        """Seats, 守醒 and 留子 pool: they sum to zero (RULES §8). With a rotating 守醒 (RULES
        §2.1.1, §8.6.1) the entries are the four persons (the 守醒's account is theirs: 0)."""
        m = self.match
        return Ledger(tuple(m.scores), {"shouxing": m.shouxing, "pool": m.pool})


#: The bots offered in rooms (docs/bots.md); ``bot()`` also builds the arena's research bots
#: and ``cmd:COMMAND`` (:func:`weimaque.games.maque.bots.get_bot`).
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
    """A 偎麻雀 bot (:class:`weimaque.games.maque.bots.Bot`) answering with action ids."""

    bot: Bot

    def act(self, view: Any, rng: random.Random) -> int:
        """The bot's action, as its id."""
        return IDS[self.bot.act(view, rng)]


@dataclass(frozen=True, slots=True)
class _ClosingSeatBot(_SeatBot):
    """A bot holding a resource (``cmd:``, an external program): the arena closes it at the
    hand's end and reports the decisions it did not make itself (docs/bot-protocol.md)."""

    @property
    def faults(self) -> tuple[object, ...]:
        """The decisions an external bot (``cmd:``) did not make itself, for the arena."""
        return tuple(getattr(self.bot, "faults", ()))

    def close(self, view: Any) -> None:
        """Let a bot that holds a resource (an external program) go, at the hand's end."""
        close = getattr(self.bot, "close", None)
        if close is not None:
            close(view)


class Maque:
    """The 偎麻雀 game object (registered as ``maque``)."""

    info: Final = GameInfo(
        "maque",
        Names("偎麻雀", "Weimaque"),
        ("weimaque", "偎麻雀", "anxiang-maque"),
        zero_sum=True,
        capabilities=frozenset(
            {"resample", "playout", "calculate", "table", "tidy", "presets", "verify", "rotation"}
            | {"replay", "review", "invariants", "terminal"}
        ),
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
        bot = get_bot(spec)
        return _ClosingSeatBot(bot) if hasattr(bot, "close") else _SeatBot(bot)

    def rules(self, variant: str, options: Mapping[str, object] | None = None) -> RuleConfig:
        """The rule set of a preset with options, checked against the schema."""
        base = self.schema.variant(variant)
        checked: dict[str, object] = dict(self.schema.validate(options or {}))
        for key in ("enable_patterns", "disable_patterns"):
            value = checked.get(key)
            if isinstance(value, tuple):
                checked[key] = list(value)
        return rules_with(*base_and_options(base.id, checked))

    def shape(self, variant: str, options: Mapping[str, object] | None = None) -> TableShape:
        """RULES §2.2, §2.5: three seats, or two where the rules say (``players``)."""
        return shape_of(self.rules(variant, options))

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
        """The ``greedy`` bot's choice (:mod:`weimaque.games.maque.bots.greedy`), from the seat's
        view."""
        if not isinstance(hand, MaqueHand):
            raise TypeError(f"not a 偎麻雀 hand: {hand!r}")
        return IDS[_GREEDY.act(hand.bot_view(seat), rng)]

    # ------------------------------------------------------------ the "table" capability

    def table_rules(self, variant: str, options: Mapping[str, object] | None = None) -> RuleConfig:
        """The :class:`RuleConfig` of a preset (id or alias) with room options."""
        return rules_with(*base_and_options(variant, options))

    def rules_info(self, rules: object) -> JSON:
        """Id, name and the options changed from the preset (``overrides_of``)."""
        assert isinstance(rules, RuleConfig)
        return {"id": rules.id, "name": rules.name, "overrides": overrides_of(rules)}

    def rule_options(self, rules: object) -> JSON:
        """Every option of the rule set (``RuleConfig.options``)."""
        assert isinstance(rules, RuleConfig)
        return rules.options()

    def extra_viewers(self, rules: object) -> tuple[str, ...]:
        """The 守醒, where the rules seat one (RULES §2.1): he sees what ``shouxing_sees`` lets
        him (RULES §2.1.2)."""
        assert isinstance(rules, RuleConfig)
        return ("shouxing",) if rules.shouxing else ()

    def event_viewer(self, hand: Any, viewer: str) -> object:
        """The 守醒 as this hand's events take him: one who sees the three hands, or the
        dealer's only (``shouxing_sees``, RULES §2.1.2)."""
        assert isinstance(hand, MaqueHand)
        return shouxing_viewer(hand.state) if viewer == "shouxing" else viewer

    def figures(self, view: Any, rules: object) -> JSON | None:
        """明息 of every seat, and a seated viewer's own 息 (``numbers.table_xi``)."""
        assert isinstance(view, Observation) and isinstance(rules, RuleConfig)
        return table_xi(view, rules)

    def hint_cache(self) -> HintCache:
        """The waits of positions asked about, bounded."""
        return HintCache()

    def hints(self, view: Any, rules: object, cache: object) -> JSON | None:
        """听 hints of a seated viewer (``numbers.hints``)."""
        assert isinstance(view, Observation) and isinstance(rules, RuleConfig)
        assert isinstance(cache, HintCache)
        return hints(view, rules, cache)

    def public_action(self, action: int) -> bool:
        """A 出: its card lies in the middle for everyone at once (RULES §3)."""
        if type(action) is int and 0 <= action < NUM_ACTIONS:
            return _DISCARDS[action]
        return _action(action).kind == "discard"  # raises IllegalAction, quoting it

    def hand_end(self, hand: Any, play: Any) -> JSON:
        """The result, every seat's cards face up, the breakdown and the settlement."""
        assert isinstance(hand, MaqueHand) and isinstance(play, MaqueMatch)
        return hand_end_json(hand.state, play.match)

    def booked(self, play: Any) -> JSON:
        """The record of the hand booked last, as the match keeps it (with its settlement):
        the table adds its fairness block and 回放码 to this very record."""
        assert isinstance(play, MaqueMatch)
        return play.match.hands[-1]

    def match_summary(self, play: Any) -> JSON:
        """The match record's version, its ledger as the record keeps it, and the 留子 pool
        shared out at the match's end (RULES §8.5), if it was."""
        assert isinstance(play, MaqueMatch)
        share = play.match.final_share
        return {
            "version": MATCH_VERSION,
            "final_pool_share": None if share is None else list(share),
            # the record's own form: per person with a rotating 守醒 (RULES §8.6.1)
            "ledger": play.match.ledger(),
        }

    def rebook(self, play: Any, record: JSON) -> tuple[MaqueHand, tuple[int, ...]]:
        """The stored hand replayed from its own deal (its record's seed or cards) and settled
        as the match's next: each seat's change."""
        assert isinstance(play, MaqueMatch)
        state = replay(record)
        play.match.current = state
        return MaqueHand(state), play.match.finish_hand().seats

    def end_early(self, play: Any) -> None:
        """解散: the match ends as it stands, the pool shared as at a normal end (RULES §8.5)."""
        assert isinstance(play, MaqueMatch)
        play.match.end_early()

    def steps(self, record: JSON) -> list[JSON]:
        """A finished hand as steps (``numbers.replay_steps``)."""
        return replay_steps(record)

    def review_spec(self, budget: int) -> str:
        """The reviewer at a server's budget (``Reviewing``): the search bot with that many
        iterations per decision."""
        return f"mcts:iters={budget}"

    def review(self, record: JSON, seat: int, spec: str, hand: int | None = None) -> JSON:
        """复盘 by a search bot (:mod:`weimaque.games.maque.bots.review`) of a hand record, a
        match record (each hand, or hand number ``hand``) or a server's ``{"record": …}``,
        checked as a record file first (docs/terminal.md); ``""`` or ``"mcts"`` is the
        reviewer's own budget (``DEFAULT_BOT``)."""
        from weimaque.games.maque.bots.review import DEFAULT_BOT, review
        from weimaque.games.maque.match import check_record_document

        check_record_document(record)
        bot = DEFAULT_BOT if spec in ("", "mcts") else spec
        result: JSON = review(record, seat, bot, hand).to_dict()
        return result

    def verify_record(self, doc: object, require_commitments: bool = True) -> Verified:
        """A hand or match record checked whole (:mod:`.verify`, docs/fairness.md)."""
        return verify_document(doc, require_commitments)

    def check_bot(self, spec: object) -> str:
        """A bot spec a server may run: a bot of ``get_bot`` with its parameters in bounds
        (``check_spec``, docs/protocol.md §1)."""
        return check_spec(spec)

    def tidy(self, request: JSON) -> JSON:
        """理牌: ``{"hand": "…"}`` grouped into 坎, 句 and pairs (:mod:`.tidyrequest`)."""
        return tidy_request(request)

    def presets(self, room_options: tuple[str, ...]) -> JSON:
        """The presets for the lobby's 偎麻雀 form (:mod:`.lobby`)."""
        return presets_info(room_options)

    # ------------------------------------------------------------ "invariants", "terminal"

    def invariants(self, hand: Any) -> list[str]:
        """The engine's invariants (:mod:`weimaque.games.maque.game.invariants`): after every
        action, and the end's once the hand is over."""
        from weimaque.games.maque.game.invariants import check_end, check_step

        if not isinstance(hand, MaqueHand):
            raise TypeError(f"not a 偎麻雀 hand: {hand!r}")
        problems = check_step(hand.state)
        if hand.state.is_terminal():
            problems += check_end(hand.state)
        return problems

    def terminal(self) -> Terminal:
        """偎麻雀's terminal front end (:mod:`weimaque.games.maque.terminal`), loaded now."""
        from weimaque.games.maque.terminal import FRONT_END

        return FRONT_END

    def counts(self, outcome: HandOutcome) -> tuple[dict[str, int], ...]:
        """Hands, wins, points and 自摸 per seat."""
        out = base_counts(outcome, len(outcome.net))
        for seat, row in enumerate(out):
            row["zimo"] = int(seat in outcome.winners and outcome.summary.get("source") == "self")
        return tuple(out)

    def calculate(self, request: JSON) -> JSON:
        """The 算息 calculator (``Calculator``; docs/protocol.md §1 ``POST /api/score``):
        ``{"hand": "碰:七七七 … 胡:九", "rules": "anxiang", "source": "self", "last": false}``
        scored as ``wmq score`` scores it, answered as ``{"rules", "breakdown"}``. ``pool`` (the
        留子 pool the winner may take, scored with ``liuzi_choice``, RULES §8.5.3), ``players``
        (2 or 3, RULES §2.5) and ``options`` (rule options over the preset) are optional; with
        any of them, or a two-player variant, the answer adds ``gain``: ``{"players", "pool",
        "take", "gain"}``, the winner's take from the pool and ``total × (players − 1) + take``.
        A request of the wrong form is a ``BadRequest``; a bad preset or option a
        ``RuleConfigError``; a bad hand the scorer's own ``InvalidNotation`` kind, each quoting
        the input."""
        from weimaque.games.maque.rules.registry import get_rules
        from weimaque.games.maque.scoring.explain import breakdown_json
        from weimaque.games.maque.scoring.scorer import (
            liuzi_take,
            score,
            score_deal_cards,
            score_tianhu,
        )
        from weimaque.games.protocol import BadRequest

        if not isinstance(request, dict):
            raise BadRequest("the body must be a JSON object")
        known: tuple[str, ...] = ("hand", "rules", "source", "last", "pool", "players", "options")
        known += ("tianhu", "deal", "dealt_kan", "declined")
        unknown = sorted(set(request) - set(known))
        if unknown:
            raise BadRequest(f"unknown fields {unknown}; known: {', '.join(known)}")
        hand = request.get("hand")
        longest = 400  # the longest hand text read (docs/protocol.md §1)
        if not isinstance(hand, str) or len(hand) > longest:
            raise BadRequest(f"hand must be a string of at most {longest}")
        rules = request.get("rules", "anxiang")
        source = request.get("source", "self")
        last = request.get("last", False)
        if not isinstance(rules, str) or not isinstance(source, str) or not isinstance(last, bool):
            raise BadRequest("rules and source are strings, last a boolean")
        flags = {k: request.get(k, False) for k in ("tianhu", "deal", "dealt_kan")}
        declined = request.get("declined", "")
        if not all(isinstance(v, bool) for v in flags.values()) or not isinstance(declined, str):
            raise BadRequest("tianhu, deal and dealt_kan are booleans, declined a string")
        dealt = "tianhu" if flags["tianhu"] else "deal" if flags["deal"] else None
        if flags["tianhu"] and flags["deal"]:
            raise BadRequest("tianhu and deal exclude each other")
        pool, players = request.get("pool"), request.get("players")
        largest = 1_000_000  # the largest pool read (docs/protocol.md §1)
        if pool is not None and (
            isinstance(pool, bool) or not isinstance(pool, int) or not 0 <= pool <= largest
        ):
            raise BadRequest(f"pool must be an integer 0..{largest}, not {quoted(pool)}")
        if players is not None and (isinstance(players, bool) or players not in (2, 3)):
            raise BadRequest(f"players must be 2 or 3, not {quoted(players)}")
        if dealt is not None and (flags["dealt_kan"] or declined or pool is not None):
            raise BadRequest(f"{dealt} scores dealt cards: not a win's dealt_kan, declined or pool")
        options = request.get("options", {})
        if not isinstance(options, dict):
            raise BadRequest(f"options must be an object of rule options, not {quoted(options)}")
        options = dict(options)
        if players is not None:
            options["players"] = players
        if pool is not None:
            options.update(liuzi=True, liuzi_choice=True)
        two = rules in TWO_PLAYER_BASES
        # A plain preset is scored as it is; options, or a variant of the seam's own
        # (anxiang-2p), through the schema, whose message names every preset.
        try:
            config = self.rules(rules, options) if options or two else get_rules(rules)
        except RuleConfigError:
            if options or two:
                raise
            config, two = self.rules(rules, options), True  # a variant by another name
        if dealt == "tianhu":  # the dealer's 20 dealt cards as 天胡
            breakdown = score_tianhu(hand, rules=config)
        elif dealt == "deal":  # a seat's dealt cards for the deal 名堂
            breakdown = score_deal_cards(hand, rules=config)
        else:
            breakdown = score(
                hand,
                rules=config,
                source=source,
                last=last,
                pool=pool,
                dealt_kan=flags["dealt_kan"],
                declined=declined,
            )
        answer: JSON = {"rules": config.id, "breakdown": breakdown_json(breakdown)}
        if options or two:
            take = liuzi_take(breakdown.hard_xi, pool, config) if pool and breakdown.winning else 0
            paid = breakdown.total * (config.players - 1) if breakdown.winning else 0
            answer["gain"] = {
                "players": config.players,
                "pool": pool,
                "take": take,
                "gain": paid + take,
            }
        return answer


GAME: Final[Game] = Maque()

__all__ = ["GAME", "LAYOUT", "SCHEMA", "SHAPE", "MaqueHand", "MaqueMatch", "shape_of"]
