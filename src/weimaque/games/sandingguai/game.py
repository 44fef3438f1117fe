"""三丁拐 behind the game protocol (:mod:`weimaque.games.protocol`, docs/new-game.md).

A thin adapter over the engine as it is: the option schema is read off :class:`RuleConfig`'s
fields, ``CHOICES`` and ``RANGES`` (labels are this module's data), each preset is a variant
whose table shape follows from its rules (SDG §2.2: the dealer 14, the others 13, the wall the
rest), a :class:`SdgHand` forwards to :class:`State`, views come from :func:`observe`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from weimaque.errors import WeimaqueError, quoted
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
from weimaque.games.sandingguai.actions import (
    NUM_ACTIONS,
    Action,
)
from weimaque.games.sandingguai.bots import Bot, GreedyBot, RandomBot
from weimaque.games.sandingguai.events import Event
from weimaque.games.sandingguai.match import Match
from weimaque.games.sandingguai.notation import tile_name
from weimaque.games.sandingguai.observation import (
    BLOCKS,
    OBS_SIZE,
    TableView,
    View,
    answered_view,
    observation_array,
    observe,
    observe_table,
    settled,
)
from weimaque.games.sandingguai.record import hand_record, replay
from weimaque.games.sandingguai.rules import (
    CHOICES,
    OPTION_NAMES,
    PRESET_IDS,
    RANGES,
    RuleConfig,
    get_rules,
)
from weimaque.games.sandingguai.search import SearchBot, parse_params
from weimaque.games.sandingguai.state import CLAIMS, DEALT, DINGQUE, NUM_SEATS, ROB, State

#: The label of every option (SDG §11, docs/sandingguai.md §10), in both languages.
LABELS: Final[Mapping[str, tuple[str, str]]] = {
    "tiles": ("牌数", "tiles in the set"),
    "max_suits": ("胡牌最多花色", "most suits in a winning hand"),
    "dingque": ("定缺", "declare a lacking suit"),
    "fan_mode": ("番的算法", "fan: add or take the highest"),
    "fan_pinghu": ("平胡番", "fan: plain win"),
    "fan_daduizi": ("大对子番", "fan: all pungs"),
    "fan_qidui": ("七对番", "fan: seven pairs"),
    "fan_longqidui": ("龙七对番", "fan: seven pairs with a four"),
    "fan_qingyise": ("清一色番", "fan: one suit"),
    "fan_qing_daduizi": ("清大对番", "fan: one suit, all pungs"),
    "fan_qing_qidui": ("清七对番", "fan: one suit, seven pairs"),
    "fan_qing_longqidui": ("清龙七对番", "fan: one suit, seven pairs with a four"),
    "fan_baoting": ("报听番", "fan: declared ready"),
    "fan_dandiao": ("单吊番", "fan: single wait"),
    "fan_tianhu": ("天胡番", "fan: dealer's win on the deal"),
    "fan_dihu": ("地胡番", "fan: win before one's first discard"),
    "zimo_bonus": ("自摸加分", "self-draw bonus"),
    "gangshanghua_bonus": ("杠上花加分", "win on a kong's replacement bonus"),
    "passport": ("通行证", "passport to win on a discard"),
    "passport_from_baoting_discarder": ("报听者点炮免通行证", "no passport on a 报听 discard"),
    "pass_lock": ("过水", "pass lock"),
    "multi_ron": ("一炮多响", "several winners on one discard"),
    "qianggang_pay": ("抢杠谁付", "who pays a robbed kong"),
    "qianggang_burn": ("抢杠烧", "what a robbed kong burns"),
    "repao_burn": ("热炮烧杠", "a hot discard burns the kong"),
    "repao_transfer_kong": ("热炮转杠", "a hot discard passes the kong on"),
    "baoting_window": ("报听时机", "when 报听 may be declared"),
    "shabao": ("杀报", "winning on a 报听 seat pays"),
    "shabao_on_zimo": ("自摸也杀报", "杀报 on a self-draw too"),
    "wugu": ("乌骨鸡", "八筒 is a chicken"),
    "wugu_value": ("乌骨鸡分", "八筒 chicken value"),
    "fanji": ("翻牌鸡", "flipped chicken"),
    "shuzi_ji": ("数字鸡", "number chickens"),
    "jinji_multiplier": ("金鸡倍数", "golden chicken multiplier"),
    "mantangji": ("满堂鸡", "every seat's chickens count"),
    "chongfeng": ("冲锋鸡", "first chicken discard"),
    "chongfeng_per_kind": ("冲锋鸡每种一次", "a first chicken per kind"),
    "zeren_multiplier": ("责任鸡倍数", "responsible chicken multiplier"),
    "baoji_scope": ("包鸡范围", "包鸡 scope"),
    "gang_an": ("暗杠分", "concealed kong"),
    "gang_bu": ("补杠分", "added kong"),
    "gang_dian": ("点杠分", "kong on a discard"),
    "baogang": ("包杠", "the discarder pays the kong"),
    "chaque": ("查缺", "missing-suit check"),
    "chaque_amount": ("查缺分", "missing-suit check amount"),
    "chahu_penalty": ("叉胡罚分", "three-suit hand penalty"),
    "chaque_on_win": ("胡后也查缺", "missing-suit check after a win too"),
    "yuanque": ("原缺", "dealt without a suit: reward"),
    "huang_settle_ji": ("荒庄算鸡", "chickens at a drawn hand"),
    "huang_settle_gang": ("荒庄算杠", "kongs at a drawn hand"),
    "dealer_stake": ("庄家加倍", "dealer's stake"),
    "dealer_scope": ("庄家范围", "what the dealer's stake covers"),
    "dealer_rotation": ("轮庄", "dealer rotation"),
    "first_dealer": ("首局庄家", "first dealer"),
    "match_hands": ("局数", "hands in a match"),
    "angang_public": ("暗杠亮明", "concealed kongs shown"),
}

#: Each choice of a choice option in both languages (SDG §11), as a form shows it.
CHOICE_NAMES: Final[dict[str, dict[object, tuple[str, str]]]] = {
    "tiles": {108: ("108张", "108 tiles"), 72: ("72张（两房，无万）", "72 tiles (no 万)")},
    "max_suits": {2: ("两门", "two suits"), 3: ("三门", "three suits")},
    "fan_mode": {"add": ("番数相加", "番 added"), "highest": ("取最大番", "the highest 番")},
    "passport": {
        "kong_or_big": ("有杠或大胡", "a kong or a big hand"),
        "kong_only": ("只认杠", "a kong only"),
        "none": ("不要", "none needed"),
    },
    "pass_lock": {
        "same_face": ("同一张", "the same tile"),
        "any": ("任何牌", "any tile"),
        "off": ("不锁", "off"),
    },
    "qianggang_pay": {
        "all": ("被抢者包赔", "the robbed seat pays for all"),
        "discard": ("按点炮付", "paid as a discard"),
    },
    "qianggang_burn": {"kong_only": ("只烧杠", "the kong only"), "all": ("全烧", "everything")},
    "baoting_window": {
        "first_discard": ("第一张出牌", "at the first discard"),
        "dealt_hand": ("起手就听", "with the dealt hand"),
    },
    "fanji": {
        "up": ("翻上鸡", "the next tile up"),
        "down": ("翻下鸡", "the next tile down"),
        "both": ("上下鸡", "up and down"),
        "self": ("本鸡", "the tile itself"),
        "off": ("不翻", "off"),
    },
    "baoji_scope": {
        "discarded": ("打出的鸡", "discarded chickens"),
        "exposed": ("亮出的鸡", "exposed chickens"),
        "all": ("全部", "all chickens"),
    },
    "chaque": {
        "three_suit_flat": ("三门赔定额", "three suits pay a flat amount"),
        "per_tile": ("按缺牌张数", "per tile of the lacking suit"),
        "off": ("不查", "off"),
    },
    "dealer_stake": {
        "multiply": ("翻倍", "multiplied"),
        "add": ("加分", "added"),
        "none": ("不加", "none"),
    },
    "dealer_scope": {
        "all": ("所有收付", "every payment"),
        "hand": ("只算胡牌", "the hand's payments"),
    },
    "dealer_rotation": {
        "winner": ("赢家坐庄", "the winner deals"),
        "next_seat": ("轮流坐庄", "the next seat deals"),
    },
    "first_dealer": {"seat0": ("1号位", "seat 1"), "random": ("随机", "random")},
}

_DEFAULTS: Final = RuleConfig()


def _spec(key: str) -> OptionSpec:
    default = getattr(_DEFAULTS, key)
    label = Names(*LABELS[key])
    if key in CHOICES:
        names = tuple(Names(*CHOICE_NAMES[key][c]) for c in CHOICES[key])
        return OptionSpec(
            key, "choice", default, label, choices=tuple(CHOICES[key]), choice_names=names
        )
    if isinstance(default, bool):
        return OptionSpec(key, "bool", default, label)
    low, high = RANGES[key]
    return OptionSpec(key, "int", default, label, low, high)


def shape_of(rules: RuleConfig) -> TableShape:
    """The table of a rule set (SDG §2.2): the dealer 14 tiles, the others 13, the wall."""
    deal = (DEALT + 1,) + (DEALT,) * (NUM_SEATS - 1)
    return TableShape(NUM_SEATS, deal, rules.tiles - sum(deal), rules.tiles)


def _variant(preset: str) -> Variant:
    rules = get_rules(preset)
    return Variant(
        rules.id,
        Names(rules.name, rules.name_en),
        shape_of(rules),
        rules.aliases,
        {k: v for k, v in rules.options().items() if isinstance(v, (bool, int, str))},
        rules.description,
        rules.description_zh,
    )


SCHEMA: Final = OptionSchema(
    tuple(_spec(k) for k in OPTION_NAMES), tuple(_variant(p) for p in PRESET_IDS)
)
#: The flat array's pieces (the block table of :mod:`.observation`), with shapes.
_SHAPES: Final[Mapping[str, tuple[int, ...]]] = {
    "melds": (3, 27),
    "hidden_angang": (3,),
    "kongs": (3,),
    "rows": (3, 27),
    "concealed": (3,),
    "baoting": (3,),
    "chickens": (3, 3),
    "que": (3, 3),
}
LAYOUT: Final = ObservationLayout(
    tuple(ObservationPiece(name, _SHAPES.get(name, (n,))) for name, n in BLOCKS)
)
assert LAYOUT.size == OBS_SIZE


@dataclass(frozen=True, slots=True)
class SdgView:
    """A viewer's view, as the engine builds it: a seat's :class:`View`, or a spectator's or an
    all-seeing replay's :class:`TableView` (:mod:`.observation`)."""

    view: View | TableView
    viewer: Viewer

    def to_json(self) -> JSON:
        """The JSON document (the engine's ``to_dict``)."""
        return self.view.to_dict()


class SdgHand:
    """One 三丁拐 hand behind :class:`~weimaque.games.protocol.Hand`."""

    __slots__ = ("scores", "state")

    def __init__(self, state: State, scores: tuple[int, int, int] = (0, 0, 0)) -> None:
        self.state = state
        self.scores = scores

    @property
    def seed(self) -> int | None:
        """The deal's seed (None for a stacked deck)."""
        return self.state.seed

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self.state.dealer

    def to_act(self) -> tuple[int, ...]:
        """Every seat still to decide."""
        return self.state.players_to_act()

    def in_window(self) -> bool:
        """A claim, rob or 定缺 window: the seats decide unseen (SDG §3, §2.4)."""
        return self.state.phase in (CLAIMS, ROB, DINGQUE)

    def settled(self, viewer: Viewer) -> bool:
        """The claim-window rule (docs/protocol.md §2.3, docs/sandingguai.md §9:
        :func:`.observation.settled`)."""
        return settled(self.state, viewer)

    def opening_view(self, viewer: Viewer) -> SdgView:
        """The view at the deal: a deal opens no claim or rob window (SDG §3; the 定缺 window
        asks every seat), so every viewer is settled there and sees the position itself."""
        return self.view(viewer)

    def legal_actions(self, seat: int) -> tuple[int, ...]:
        """Legal action ids of ``seat``."""
        return tuple(self.state.legal_actions(seat))

    def verify(self, seat: int, action: int) -> None:
        """Raise ``IllegalAction`` naming the rule."""
        self.state.verify(action, seat)

    def apply(self, seat: int, action: int) -> tuple[Event, ...]:
        """Take the action; its events."""
        return self.state.apply(action, seat)

    def events(self) -> tuple[Event, ...]:
        """Every event so far."""
        return tuple(self.state.events)

    def is_terminal(self) -> bool:
        """Whether the hand is over."""
        return self.state.is_terminal()

    def outcome(self) -> HandOutcome | None:
        """Net points, winners, and the table's end (SDG §9)."""
        result = self.state.result
        if result is None:
            return None
        table = result.table
        summary = {
            "huang": table.huang,
            "wins": [
                {"seat": w.seat, "tile": tile_name(w.tile), "way": w.way, "from": w.source}
                for w in table.winners
            ],
            "transfers": [
                [t.payer, t.payee, t.amount, t.reason] for t in result.settlement.transfers
            ],
        }
        return HandOutcome(result.net, tuple(w.seat for w in table.winners), summary)

    def view(self, viewer: Viewer) -> SdgView:
        """A seat's view (SDG §10), a spectator's or an all-seeing replay's (``observe_table``)."""
        if isinstance(viewer, int):
            return SdgView(observe(self.state, viewer, self.scores), viewer)
        if viewer not in ("public", "all"):
            raise ValueError(f"a viewer is a seat, 'public' or 'all', not {viewer!r}")
        return SdgView(observe_table(self.state, viewer, self.scores), viewer)

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """The seat's flat array (:data:`LAYOUT`)."""
        return observation_array(observe(self.state, seat, self.scores))

    def bot_view(self, seat: int) -> View:
        """The seat's typed view, legal actions included."""
        return observe(self.state, seat, self.scores)

    def deal(self) -> JSON:
        """The deck as shuffled: 40 dealt from the dealer round, then the wall (SDG §2.2)."""
        return {"dealer": self.state.dealer, "deck": [tile_name(t) for t in self.state.deck]}

    def record(self) -> JSON:
        """The hand's record (:func:`.record.hand_record`)."""
        return hand_record(self.state)

    def clone(self) -> SdgHand:
        """An independent copy."""
        return SdgHand(self.state.clone(), self.scores)

    def resample(self, seat: int, rng: random.Random) -> SdgHand:
        """The tiles ``seat`` cannot see dealt again (:meth:`State.resample`)."""
        return SdgHand(self.state.resample(seat, rng), self.scores)


class SdgMatch:
    """A match (SDG §9.6) behind :class:`~weimaque.games.protocol.MatchPlay`."""

    __slots__ = ("match",)

    def __init__(self, match: Match) -> None:
        self.match = match

    def is_over(self) -> bool:
        """Whether every hand was played."""
        return self.match.is_over()

    def next_hand(self) -> SdgHand:
        """Deal the next hand."""
        return SdgHand(self.match.next_hand(), self.match.scores)

    def finish(self, hand: Any) -> tuple[int, ...]:
        """Book the finished hand; each seat's change."""
        if not isinstance(hand, SdgHand):
            raise TypeError(f"not a 三丁拐 hand: {hand!r}")
        return self.match.finish(hand.state).net

    def ledger(self) -> Ledger:
        """Each seat's points (SDG §9.6: they sum to zero)."""
        return Ledger(self.match.scores)


BOTS: Final = (
    BotInfo(
        "greedy",
        Names("贪心", "greedy"),
        Names(
            "看离叫远近与剩余进张，兼顾通行证、两门与鸡",
            "distance from 叫 and winning tiles left, with the passport, two suits and chickens",
        ),
    ),
    BotInfo(
        "random",
        Names("随机", "random"),
        Names("随机选一个合法动作", "a uniformly random legal action"),
    ),
    BotInfo(
        "search",
        Names("搜索", "search"),
        Names(
            "以贪心为底（第一张鸡先打），在与所见一致的牌局中把几种候选各打到底，取平均得分最高者",
            "starts from greedy that throws the first chicken, plays its best few candidates "
            "out in deals consistent with its view, keeps the best average",
        ),
        slow=True,
    ),
)


def _bot(name: str, params: dict[str, str], rules: RuleConfig) -> Bot:
    """The bot of one spec for a table of ``rules`` (``search:sims=64,width=2,...``: the
    parameters of :data:`.search.PARAMS`)."""
    if name == "search":
        try:
            kwargs = parse_params(params)
        except ValueError as exc:
            raise WeimaqueError(f"bot spec search: {exc}") from None
        return SearchBot(rules, **kwargs)
    if params:
        raise WeimaqueError(f"bot {name!r} takes no parameters, not {quoted(params)}")
    if name == "random":
        return RandomBot()
    if name == "greedy":
        return GreedyBot(rules)
    known = ", ".join(b.name for b in BOTS)
    raise WeimaqueError(f"unknown 三丁拐 bot {quoted(name)}; known: {known}")


class Sandingguai:
    """The 三丁拐 game object (registered as ``sandingguai``)."""

    info: Final = GameInfo(
        "sandingguai",
        Names("三丁拐", "Sandingguai"),
        ("sdg", "三丁拐"),
        zero_sum=True,
        capabilities=frozenset(
            {"resample", "playout", "calculate", "replay", "review", "invariants"}
        ),
    )
    schema: Final = SCHEMA
    layout: Final = LAYOUT
    num_actions: Final = NUM_ACTIONS
    counters: Final = (
        *BASE_COUNTERS,
        Counter("zimo", Names("自摸", "self-drawn wins")),
        Counter("dianpao", Names("点炮", "discards won on")),
    )
    bots: Final = BOTS

    def bot(self, spec: str, variant: str, options: Mapping[str, object] | None = None) -> Bot:
        """A bot by spec (``greedy``, ``random``, ``search:sims=64``) for a table of a preset
        with options."""
        name, _, rest = spec.strip().partition(":")
        params = dict(kv.partition("=")[::2] for kv in rest.split(",") if kv.strip())
        return _bot(name.strip(), params, self.rules(variant, options))

    def rules(self, variant: str, options: Mapping[str, object] | None = None) -> RuleConfig:
        """The rule set of a preset with options, checked against the schema."""
        base = self.schema.variant(variant)
        checked = self.schema.validate(options or {})
        return get_rules(base.id, **checked)

    def shape(self, variant: str, options: Mapping[str, object] | None = None) -> TableShape:
        """The table of a preset with options (``tiles`` changes the wall)."""
        return shape_of(self.rules(variant, options))

    def new_hand(
        self,
        variant: str,
        options: Mapping[str, object] | None = None,
        seed: int = 0,
        dealer: int = 0,
    ) -> SdgHand:
        """Deal a hand."""
        return SdgHand(State(self.rules(variant, options), seed, dealer))

    def new_match(
        self, variant: str, options: Mapping[str, object] | None = None, seed: int = 0
    ) -> SdgMatch:
        """A match."""
        return SdgMatch(Match(self.rules(variant, options), seed))

    def replay(self, record: object) -> SdgHand:
        """Replay a record (``RecordError`` quoting what is wrong)."""
        return SdgHand(replay(record))

    def action(self, action_id: int) -> Action:
        """The action with this id."""
        return Action.from_id(action_id)

    def parse_action(self, text: str) -> Action:
        """Parse ``出5p``, ``碰``, ``胡`` …"""
        return Action.parse(text)

    def answered(self, view: Any, action: int) -> SdgView:
        """A seat's view once it answered (``answered_view``, docs/protocol.md §2.3); a
        spectator's or a replay's never answers."""
        if not isinstance(view, SdgView):
            raise TypeError(f"not a 三丁拐 view: {view!r}")
        if not isinstance(view.view, View):
            return view
        return SdgView(answered_view(view.view, action), view.viewer)

    def playout(self, hand: Any, seat: int, rng: random.Random) -> int:
        """:class:`~.bots.GreedyBot`'s choice, from the seat's view (it 胡s whenever it may,
        so the kit reaches wins and their settlement)."""
        if not isinstance(hand, SdgHand):
            raise TypeError(f"not a 三丁拐 hand: {hand!r}")
        return GreedyBot(hand.state.rules).act(observe(hand.state, seat), rng)

    def counts(self, outcome: HandOutcome) -> tuple[dict[str, int], ...]:
        """Hands, wins, points, 自摸 and 点炮 per seat."""
        out = base_counts(outcome, NUM_SEATS)
        for row in out:
            row["zimo"] = row["dianpao"] = 0
        for win in outcome.summary.get("wins", ()):
            if win["from"] is None:
                out[win["seat"]]["zimo"] += 1
            else:
                out[win["from"]]["dianpao"] += 1
        return tuple(out)

    def steps(self, record: JSON) -> list[JSON]:
        """A finished hand's record as replay steps (``Replaying``; :func:`.review.replay_steps`:
        the all-seeing view after each action, the hand's end at the last)."""
        from weimaque.games.sandingguai.review import replay_steps

        return replay_steps(record)

    def review_spec(self, budget: int) -> str:
        """The reviewer at a server's budget (``Reviewing``): ``review:worlds=N``, one world per
        20 of the budget, 4 to 64 (the default 300 gives 15: a seat's review in seconds,
        docs/sandingguai.md §14)."""
        return f"review:worlds={max(4, min(64, budget // 20))}"

    def review(self, record: JSON, seat: int, spec: str, hand: int | None = None) -> JSON:
        """复盘 of one seat of a finished hand (``Reviewing``; :func:`.review.review`): a hand
        record is one hand (``hand`` None or 1); ``""`` is the reviewer at the default budget."""
        from weimaque.errors import RecordError
        from weimaque.games.sandingguai.review import review

        if hand not in (None, 1):
            raise RecordError(f"a 三丁拐 hand record holds hand 1 only, not {quoted(hand)}")
        return review(record, seat, spec or self.review_spec(300))

    def invariants(self, hand: Any) -> list[str]:
        """The engine's invariants (``Invariants``, :mod:`.invariants`, SDG §12)."""
        from weimaque.games.sandingguai.invariants import problems

        if not isinstance(hand, SdgHand):
            raise TypeError(f"not a 三丁拐 hand: {hand!r}")
        return problems(hand.state)

    def calculate(self, request: JSON) -> JSON:
        """The calculator (``Calculator``, docs/sandingguai.md §12): a hand description scored
        or a table description settled, explained (:func:`.calc.calculate`); a request of the
        wrong form is a ``BadRequest`` quoting it."""
        from weimaque.games.protocol import BadRequest
        from weimaque.games.sandingguai.calc import RequestError, calculate

        try:
            return calculate(request)
        except RequestError as exc:
            raise BadRequest(str(exc)) from exc


GAME: Final[Game] = Sandingguai()

__all__ = ["GAME", "LAYOUT", "SCHEMA", "SdgHand", "SdgMatch", "SdgView"]
