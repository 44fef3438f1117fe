"""Settlement of a 三丁拐 hand (SDG §7-§9): a list of transfers that sums to zero.

Settlement reads only a :class:`TableDescription` (SDG §1.5), so the worked examples of SDG §12
and the end of a played hand go through the same code. Each rule is one small function adding
transfers; :func:`settle` runs them in the order of SDG §9.2 and applies the dealer's stake.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from weimaque.games.sandingguai.hands import (
    WinContext,
    jiao_value,
    score,
    suits_of,
    waits,
)
from weimaque.games.sandingguai.notation import (
    Meld,
    MeldKind,
    SeatDescription,
    TableDescription,
)
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.tiles import MASK_SUITS, NUM_KINDS, SUIT_BIT, WUGU, YAOJI

NUM_SEATS: Final = 3
#: Transfer reasons, with their Chinese names (SDG §9.2, §9.3).
REASONS: Final = {
    "hu": "胡",
    "shabao": "杀报",
    "repao_kong": "热炮杠",
    "gang_an": "暗杠",
    "gang_bu": "补杠",
    "gang_dian": "点杠",
    "ji": "鸡",
    "baoji": "包鸡",
    "zeren": "责任鸡",
    "chajiao": "查叫",
    "sanse": "三色",
    "chaque": "查缺",
    "yuanque": "原缺",
    "chahu": "叉胡",
}
#: Reasons that are the hand itself (``dealer_scope = hand``, ``dealer_stake = add``).
HAND_REASONS: Final = frozenset({"hu"})


@dataclass(frozen=True, slots=True)
class Transfer:
    """One payment: ``payer`` pays ``payee`` ``amount`` points for ``reason`` (SDG §9.2)."""

    payer: int
    payee: int
    amount: int
    reason: str

    def __str__(self) -> str:
        return f"s{self.payer}→s{self.payee} {self.amount} {REASONS[self.reason]}"


@dataclass(frozen=True, slots=True)
class Settlement:
    """What one hand moved: the transfers (after the dealer's stake), each seat's net, the
    seats that were 叫 and burned, the chicken values, and the next dealer with his streak."""

    transfers: tuple[Transfer, ...]
    net: tuple[int, int, int]
    jiao: tuple[bool, bool, bool]
    burned: tuple[bool, bool, bool]
    chicken_values: tuple[int, ...]
    next_dealer: int
    next_streak: int


def next_rank_kinds(flip: int, mode: str) -> tuple[int, ...]:
    """The 翻牌鸡 kinds a flipped tile makes (SDG §7.2): the next rank of its suit (9 → 1) for
    ``up``, the previous for ``down``, both, the flipped kind itself (``self``), or none."""
    base, r = flip - flip % 9, flip % 9
    up, down = base + (r + 1) % 9, base + (r - 1) % 9
    return {"up": (up,), "down": (down,), "both": (up, down), "self": (flip,), "off": ()}[mode]


def chicken_values(rules: RuleConfig, flip: int | None) -> tuple[int, ...]:
    """v(t) of every kind (SDG §7.1, §7.3): 幺鸡 1, 八筒 ``wugu_value``, 翻牌鸡 1 (or its rank
    with 数字鸡); a fixed chicken that is also 翻牌鸡 is 金鸡 (× ``jinji_multiplier``)."""
    v = [0] * NUM_KINDS
    v[YAOJI] = 1
    if rules.wugu:
        v[WUGU] = rules.wugu_value
    fixed = tuple(v)
    if flip is not None:
        for f in next_rank_kinds(flip, rules.fanji):
            if fixed[f]:
                v[f] = fixed[f] * rules.jinji_multiplier
            else:
                v[f] = f % 9 + 1 if rules.shuzi_ji and f != YAOJI else 1
    return tuple(v)


class _Book:
    """Transfers collected while settling one hand."""

    def __init__(self) -> None:
        self.items: list[Transfer] = []

    def pay(self, payer: int, payee: int, amount: int, reason: str) -> None:
        if amount > 0 and payer != payee:
            self.items.append(Transfer(payer, payee, amount, reason))


def _meld_tiles(seat: SeatDescription) -> list[int]:
    return [m.tile for m in seat.melds for _ in range(m.size)]


def is_jiao(seat: SeatDescription, rules: RuleConfig) -> bool:
    """叫 (SDG §6.3) of a seat's 13 tiles."""
    return bool(waits(seat.concealed, seat.melds, rules.max_suits, seat.que))


def win_context(table: TableDescription, seat: int) -> WinContext:
    """The win context of a winner of a finished table (SDG §6.2, §6.4)."""
    s = table.seats[seat]
    w = next(w for w in table.winners if w.seat == seat)
    c = list(s.concealed)
    c[w.tile] += 1
    way = {"dianpao": "other", "zimo": "self", "gangshanghua": "kong", "qianggang": "rob"}
    return WinContext(
        tuple(c),
        s.melds,
        w.tile,
        way.get(w.way, "repao"),  # type: ignore[arg-type]
        s.baoting,
        tianhu=w.early and seat == table.dealer,
        dihu=w.early and seat != table.dealer,
    )


def _hand_items(table: TableDescription, rules: RuleConfig, book: _Book) -> None:
    """SDG §9.2.1-3: the hand, 杀报, and the 热炮 kong transfer."""
    for w in table.winners:
        f = score(win_context(table, w.seat), rules).fan
        z = rules.zimo_bonus
        if w.way in ("dianpao", "repao"):
            assert w.source is not None
            book.pay(w.source, w.seat, f, "hu")
        elif w.way == "qianggang":
            assert w.source is not None
            amount = (f + z) * (NUM_SEATS - 1) if rules.qianggang_pay == "all" else f
            book.pay(w.source, w.seat, amount, "hu")
        else:
            bonus = rules.gangshanghua_bonus if w.way == "gangshanghua" else 0
            for o in range(NUM_SEATS):
                book.pay(o, w.seat, f + z + bonus, "hu")
        if w.way in ("dianpao", "repao"):
            assert w.source is not None
            if table.seats[w.source].baoting:
                book.pay(w.source, w.seat, rules.shabao, "shabao")
        elif w.way in ("zimo", "gangshanghua") and rules.shabao_on_zimo:
            for o in range(NUM_SEATS):
                if table.seats[o].baoting:
                    book.pay(o, w.seat, rules.shabao, "shabao")
        if w.way == "repao" and rules.repao_transfer_kong:
            assert w.source is not None and table.repao_kong is not None
            book.pay(w.source, w.seat, _kong_total(table.repao_kong, rules), "repao_kong")


def _kong_total(kind: MeldKind, rules: RuleConfig) -> int:
    """What a kong collects in all (SDG §9.2.3): 暗杠 2 × 2, 补杠 1 × 2, 点杠 1."""
    if kind is MeldKind.ANGANG:
        return rules.gang_an * (NUM_SEATS - 1)
    if kind is MeldKind.BUGANG:
        return rules.gang_bu * (NUM_SEATS - 1)
    return rules.gang_dian


def burned_seats(table: TableDescription, rules: RuleConfig) -> tuple[bool, bool, bool]:
    """烧鸡 (SDG §7.9): the 热炮 discarder; with ``qianggang_burn = all`` the robbed seat."""
    burned = [False] * NUM_SEATS
    for w in table.winners:
        if w.source is None:
            continue
        if (w.way == "repao" and rules.repao_burn) or (
            w.way == "qianggang" and rules.qianggang_burn == "all"
        ):
            burned[w.source] = True
    return burned[0], burned[1], burned[2]


@dataclass(frozen=True, slots=True)
class KongLine:
    """One kong and what it is worth (SDG §8.1): its owner and meld, the seats that pay it,
    the value each pays, and the reason of its transfers."""

    owner: int
    meld: Meld
    payers: tuple[int, ...]
    value: int
    reason: str


def kong_lines(table: TableDescription, rules: RuleConfig) -> tuple[KongLine, ...]:
    """Every kong of the table with its payers and value (SDG §8.1): 暗杠 and 补杠 from each
    other seat, 明杠 (点杠) from the seat that fed it."""
    lines: list[KongLine] = []
    for owner, seat in enumerate(table.seats):
        for m in seat.melds:
            if not m.kind.is_kong:
                continue
            if m.kind is MeldKind.GANG:
                assert m.source is not None
                lines.append(KongLine(owner, m, (m.source,), rules.gang_dian, "gang_dian"))
                continue
            payers = tuple(o for o in range(NUM_SEATS) if o != owner)
            if m.kind is MeldKind.ANGANG:
                lines.append(KongLine(owner, m, payers, rules.gang_an, "gang_an"))
            else:
                lines.append(KongLine(owner, m, payers, rules.gang_bu, "gang_bu"))
    return tuple(lines)


def _kongs(
    table: TableDescription,
    rules: RuleConfig,
    jiao: tuple[bool, ...],
    burned: tuple[bool, ...],
    book: _Book,
) -> None:
    """SDG §8: kong money, to a 叫 unburned owner (or, with ``baogang``, from a non-叫 one)."""
    for line in kong_lines(table, rules):
        owner = line.owner
        for p in line.payers:
            if jiao[owner] and not burned[owner]:
                book.pay(p, owner, line.value, line.reason)
            elif not jiao[owner] and rules.baogang:
                book.pay(owner, p, line.value, line.reason)


@dataclass(frozen=True, slots=True)
class ChickenLine:
    """Chickens of one kind a seat counts in one place (SDG §7.6, §7.7): ``where`` is
    ``hand``, ``meld``, ``win`` (the winning tile), ``discard`` (its row) or ``chongfeng`` (the
    冲锋 extra); ``count`` tiles worth ``value`` each."""

    where: str
    tile: int
    count: int
    value: int

    @property
    def total(self) -> int:
        """What the line adds: count × value."""
        return self.count * self.value


#: The places a non-叫 seat's 包鸡 counts, by ``baoji_scope`` (SDG §7.7).
BAOJI_PLACES: Final = {
    "discarded": frozenset({"discard", "chongfeng"}),
    "exposed": frozenset({"discard", "chongfeng", "meld"}),
    "all": frozenset({"discard", "chongfeng", "meld", "hand"}),
}


def chicken_lines(
    table: TableDescription, rules: RuleConfig, v: tuple[int, ...], seat: int
) -> tuple[ChickenLine, ...]:
    """Every chicken ``seat`` holds, by place (SDG §7.6): its concealed tiles, melds, winning
    tile, discard row (fixed chickens only unless ``mantangji``) and the 冲锋 extra (§7.4).
    A 叫 seat collects their sum; a non-叫 seat pays 包鸡 on the places of ``baoji_scope``."""
    s = table.seats[seat]
    lines: list[ChickenLine] = []
    fixed = {YAOJI, WUGU} if rules.wugu else {YAOJI}
    for k in range(NUM_KINDS):
        if v[k] and s.concealed[k]:
            lines.append(ChickenLine("hand", k, s.concealed[k], v[k]))
    for m in s.melds:
        if v[m.tile]:
            lines.append(ChickenLine("meld", m.tile, m.size, v[m.tile]))
    for w in table.winners:
        if w.seat == seat and v[w.tile]:
            lines.append(ChickenLine("win", w.tile, 1, v[w.tile]))
    row = [0] * NUM_KINDS
    for t in s.discards:
        row[t] += 1
    for k in range(NUM_KINDS):
        if row[k] and v[k] and (rules.mantangji or k in fixed):
            lines.append(ChickenLine("discard", k, row[k], v[k]))
    if rules.chongfeng:
        for first in table.firsts:
            if first.claim is None and first.seat == seat and v[first.tile]:
                lines.append(ChickenLine("chongfeng", first.tile, 1, v[first.tile]))
    return tuple(lines)


def collectors(jiao: tuple[bool, ...], burned: tuple[bool, ...]) -> tuple[int, ...]:
    """The seats that collect chickens and kongs: 叫 and not burned (SDG §7.6, §7.9)."""
    return tuple(i for i in range(NUM_SEATS) if jiao[i] and not burned[i])


def _chickens(
    table: TableDescription,
    rules: RuleConfig,
    v: tuple[int, ...],
    jiao: tuple[bool, ...],
    burned: tuple[bool, ...],
    book: _Book,
) -> None:
    """SDG §7.4-§7.7: collection by 叫 seats, 冲锋鸡, 包鸡 and 责任鸡."""
    takers = collectors(jiao, burned)
    places = BAOJI_PLACES[rules.baoji_scope]
    for i in range(NUM_SEATS):
        lines = chicken_lines(table, rules, v, i)
        if i in takers:
            c = sum(line.total for line in lines)
            for o in range(NUM_SEATS):
                book.pay(o, i, c, "ji")
        elif not jiao[i]:
            b = sum(line.total for line in lines if line.where in places)
            for j in takers:
                book.pay(i, j, b, "baoji")
    for first in table.firsts:
        claimant = first.claimant
        if first.claim in ("peng", "gang") and claimant is not None and claimant in takers:
            book.pay(first.seat, claimant, rules.zeren_multiplier * v[first.tile], "zeren")


def _huang(table: TableDescription, rules: RuleConfig, jiao: tuple[bool, ...], book: _Book) -> None:
    """SDG §9.3: 查叫 (each non-叫 seat pays each 叫 seat its 叫 value) and the three-suit
    penalty (a non-叫 seat of three suits pays ``chaque_amount`` to each 叫 seat and each
    non-叫 seat of at most two suits)."""
    if True in jiao:  # 查叫 moves points only to a 叫 seat (most random hands have none)
        values = [
            jiao_value(s.concealed, s.melds, s.baoting, rules, s.que) if jiao[i] else 0
            for i, s in enumerate(table.seats)
        ]
        for i in range(NUM_SEATS):
            if jiao[i]:
                continue
            for j in range(NUM_SEATS):
                if jiao[j]:
                    book.pay(i, j, values[j], "chajiao")
    if rules.chaque == "per_tile":
        _chaque_per_tile(table, rules, jiao, book)
    if rules.chaque != "three_suit_flat":
        return
    s0, s1, s2 = table.seats
    suits = (_suit_count(s0), _suit_count(s1), _suit_count(s2))
    if 3 not in suits:
        return  # nobody pays the three-suit penalty
    for i in range(NUM_SEATS):
        if jiao[i] or suits[i] < 3:
            continue
        for j in range(NUM_SEATS):
            if j != i and (jiao[j] or suits[j] <= 2):
                book.pay(i, j, rules.chaque_amount, "sanse")


def _chaque_per_tile(
    table: TableDescription, rules: RuleConfig, jiao: tuple[bool, ...], book: _Book
) -> None:
    """查缺 (SDG §9.3 option, with 定缺): each tile of its declared lacking suit a seat still
    holds (concealed or melded) costs ``chaque_amount`` to each 叫 seat (a 叫 seat holds none)."""
    for i, seat in enumerate(table.seats):
        if seat.que < 0:
            continue
        base = 9 * seat.que
        n = sum(seat.concealed[base : base + 9])
        n += sum(m.size for m in seat.melds if m.tile // 9 == seat.que)
        for j in range(NUM_SEATS):
            if jiao[j]:
                book.pay(i, j, n * rules.chaque_amount, "chaque")


def _yuanque(
    table: TableDescription, rules: RuleConfig, jiao: tuple[bool, ...], book: _Book
) -> None:
    """原缺 (SDG §9.4 option, with 定缺): a 叫 seat dealt without a suit collects ``yuanque``
    from each 叫 seat that was dealt all three."""
    for i, seat in enumerate(table.seats):
        if not (jiao[i] and seat.yuanque):
            continue
        for j, other in enumerate(table.seats):
            if jiao[j] and not other.yuanque:
                book.pay(j, i, rules.yuanque, "yuanque")


def _suit_count(seat: SeatDescription) -> int:
    mask = suits_of(seat.concealed)
    for m in seat.melds:
        mask |= SUIT_BIT[m.tile]
    return MASK_SUITS[mask]


def stake(table: TableDescription, rules: RuleConfig, t: Transfer) -> Transfer:
    """SDG §9.5: a transfer between the dealer and another seat is × (1 + k), or (``add``) the
    dealer's hand payments get + k; ``dealer_scope = hand`` limits it to the hand itself."""
    if table.dealer not in (t.payer, t.payee) or rules.dealer_stake == "none":
        return t
    if rules.dealer_scope == "hand" and t.reason not in HAND_REASONS:
        return t
    k = table.streak
    if rules.dealer_stake == "multiply":
        return Transfer(t.payer, t.payee, t.amount * (1 + k), t.reason)
    if t.reason in HAND_REASONS:
        return Transfer(t.payer, t.payee, t.amount + k, t.reason)
    return t


def next_dealer(table: TableDescription, rules: RuleConfig) -> tuple[int, int]:
    """SDG §9.5: the dealer keeps the deal when he wins (k + 1) and after 荒庄 (k unchanged);
    otherwise the winner nearest him in turn order deals (k = 1), or with ``next_seat`` his
    下家."""
    winners = {w.seat for w in table.winners}
    if not winners:
        return table.dealer, table.streak
    if table.dealer in winners:
        return table.dealer, table.streak + 1
    if rules.dealer_rotation == "next_seat":
        return (table.dealer + 1) % NUM_SEATS, 1
    for d in range(1, NUM_SEATS):
        seat = (table.dealer + d) % NUM_SEATS
        if seat in winners:
            return seat, 1
    raise AssertionError("unreachable: a winner is one of the seats")


def settle_items(
    table: TableDescription, rules: RuleConfig, known_jiao: Sequence[bool] | None = None
) -> tuple[tuple[Transfer, ...], tuple[bool, bool, bool], tuple[bool, bool, bool], tuple[int, ...]]:
    """The items of one finished hand before the dealer's stake (SDG §9.2, §9.3), with the
    seats that were 叫 and burned and the chicken values: what :func:`settle` stakes and sums,
    and what the calculator (``calc.py``) explains. ``known_jiao``: whether each seat's 13
    tiles are 叫 (:func:`is_jiao`), when the caller already knows it (the engine keeps every
    seat's 叫 as it plays); read from the table otherwise. A winner is 叫 either way."""
    book = _Book()
    winners = {w.seat for w in table.winners}
    if known_jiao is None:
        jiao_list = [i in winners or is_jiao(s, rules) for i, s in enumerate(table.seats)]
        jiao = (jiao_list[0], jiao_list[1], jiao_list[2])
    else:
        j0, j1, j2 = known_jiao
        jiao = (0 in winners or bool(j0), 1 in winners or bool(j1), 2 in winners or bool(j2))
    burned = burned_seats(table, rules)
    if table.huang:
        v = chicken_values(rules, None)
        _huang(table, rules, jiao, book)
        if rules.huang_settle_gang:
            _kongs(table, rules, jiao, burned, book)
        if rules.huang_settle_ji:
            _chickens(table, rules, v, jiao, burned, book)
    else:
        v = chicken_values(rules, table.flip)
        _hand_items(table, rules, book)
        _kongs(table, rules, jiao, burned, book)
        _chickens(table, rules, v, jiao, burned, book)
        if rules.chaque == "per_tile" and rules.chaque_on_win:
            _chaque_per_tile(table, rules, jiao, book)
    if rules.yuanque:
        _yuanque(table, rules, jiao, book)
    return tuple(book.items), jiao, burned, v


def settle(
    table: TableDescription,
    rules: RuleConfig | None = None,
    known_jiao: Sequence[bool] | None = None,
) -> Settlement:
    """Settle one finished hand (SDG §9): every item a transfer, the dealer's stake applied;
    ``known_jiao`` as :func:`settle_items` takes it."""
    rules = rules or RuleConfig()
    items, jiao, burned, v = settle_items(table, rules, known_jiao)
    d = table.dealer
    # SDG §9.5: only a transfer to or from the dealer is staked (most are not)
    transfers = tuple(stake(table, rules, t) if d in (t.payer, t.payee) else t for t in items)
    net = [0, 0, 0]
    for t in transfers:
        net[t.payer] -= t.amount
        net[t.payee] += t.amount
    dealer, streak = next_dealer(table, rules)
    return Settlement(transfers, (net[0], net[1], net[2]), jiao, burned, v, dealer, streak)


def chahu_transfers(seat: int, rules: RuleConfig | None = None) -> tuple[Transfer, ...]:
    """The referee's 叉胡 penalty (SDG §4.7, [T3] 包赔): a seat that declared a false 胡 pays
    ``chahu_penalty`` to each other seat. The engine never lets a false 胡 be declared."""
    rules = rules or RuleConfig()
    return tuple(
        Transfer(seat, o, rules.chahu_penalty, "chahu") for o in range(NUM_SEATS) if o != seat
    )
