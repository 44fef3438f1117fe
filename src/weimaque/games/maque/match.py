"""A match: hands in sequence with dealer rotation, payments, 守醒 and 留子 (RULES §8).

The ledger holds each seat's points (two or three seats, RULES §2.5), the 守醒's and the 留子
pool; all of them always sum to zero. With ``shouxing_rotation`` (RULES §2.1.1) four persons take
turns at the three seats and the ledger is per person (the 守醒's share goes to the person sitting
out), summing to zero with the pool.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Final

from weimaque.errors import RecordError, WeimaqueError, quoted
from weimaque.games.maque.game.record import MAX_NUMBER, check_hand_record, hand_record, replay
from weimaque.games.maque.game.state import GameState, HandResult, xiajia
from weimaque.games.maque.rules.config import RuleConfig
from weimaque.games.maque.rules.registry import get_rules, overrides_of, rules_with
from weimaque.games.maque.scoring.scorer import liuzi_take

MATCH_VERSION: Final = 1
#: RULES §2.1.1: the persons round a table with a rotating 守醒.
PERSONS: Final = 4
#: The most hands a match record may hold: the most a match may have (``RuleConfig``).
MAX_HANDS: Final = 10_000


@dataclass(frozen=True, slots=True)
class Settlement:
    """What one hand moved: per seat, to the 守醒, into (+) or out of (−) the pool.

    ``dealer`` and ``next_dealer`` are seats; with ``shouxing_rotation`` they are persons, and
    ``persons`` is what each of the four persons gained (the 守醒's share to the one sitting
    out, RULES §8.4.1)."""

    seats: tuple[int, ...]
    shouxing: int
    pool: int
    dealer: int
    next_dealer: int
    persons: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        out: dict[str, Any] = {
            "seats": list(self.seats),
            "shouxing": self.shouxing,
            "pool": self.pool,
            "dealer": self.dealer,
            "next_dealer": self.next_dealer,
        }
        if self.persons is not None:
            out["persons"] = list(self.persons)
        return out


def stakes_before(rules: RuleConfig, first: bool) -> bool:
    """Whether the 逗溜子 stakes go in before this deal (RULES §8.5.1): before every deal
    (``"deal"``), or before the match's first (``"start_and_chou"``)."""
    if not rules.liuzi:
        return False
    return rules.liuzi_when == "deal" or (first and rules.liuzi_when == "start_and_chou")


def settle(
    result: HandResult, dealer: int, pool: int, rules: RuleConfig, *, first: bool = False
) -> Settlement:
    """Settle one finished hand (RULES §8.2-§8.5, §8.7.2); ``pool`` is the 留子 pool before the
    deal, ``first`` whether this is the match's first hand (RULES §8.5.1). Seats are the hand's:
    ``dealer`` is a seat (seat 0 under ``shouxing_rotation``, whose caller maps the seats to
    persons)."""
    n = rules.players
    seats = [0] * n
    shouxing = 0
    pool_delta = 0

    def stake() -> None:
        # the dealer puts in liuzi_dealer, the others liuzi_other (RULES §8.5, §8.5.1)
        nonlocal pool_delta
        for s in range(n):
            amount = rules.liuzi_dealer if s == dealer else rules.liuzi_other
            seats[s] -= amount
            pool_delta += amount

    if stakes_before(rules, first):
        stake()
    winner = result.winner
    if winner is None or result.breakdown is None:
        if rules.shouxing and rules.shouxing_liuju_reward:
            for s in range(n):
                seats[s] -= rules.shouxing_liuju_reward
                shouxing += rules.shouxing_liuju_reward
        if rules.liuzi and rules.liuzi_when != "deal":
            stake()  # after a 臭 hand (RULES §8.5.1)
        next_dealer = xiajia(dealer, n)
    else:
        total = result.breakdown.total
        # each loser pays the total, at most the cap (RULES §8.3, §8.7.2)
        paid = min(total, rules.hand_cap) if rules.hand_cap else total
        for s in range(n):
            if s != winner:
                seats[s] -= paid
                seats[winner] += paid
        if rules.shouxing:
            share = paid // rules.shouxing_divisor  # RULES §8.4 [D], §8.7.2
            seats[winner] -= share
            shouxing += share
        take = liuzi_take(result.breakdown.hard_xi, pool + pool_delta, rules)
        seats[winner] += take
        pool_delta -= take
        if rules.dealer_rotation == "winner_deals":
            next_dealer = winner
        else:
            next_dealer = dealer if winner == dealer else xiajia(dealer, n)
    return Settlement(tuple(seats), shouxing, pool_delta, dealer, next_dealer)


def seat_persons(dealer_person: int) -> tuple[int, int, int]:
    """The persons at seats 0, 1, 2 when ``dealer_person`` deals (RULES §2.1.1): the dealer, the
    person after him, and the one before him; the one opposite (D+2) is the 守醒."""
    d = dealer_person
    return (d, (d + 1) % PERSONS, (d + 3) % PERSONS)


def settle_persons(
    result: HandResult, dealer_person: int, pool: int, rules: RuleConfig, *, first: bool = False
) -> Settlement:
    """Settle a hand of a table with a rotating 守醒 (RULES §2.1.1, §8.2.1, §8.4.1): the hand's
    seats settled as :func:`settle` does with seat 0 dealing, then booked to the persons; the
    守醒's share and 臭 reward go to the person sitting out; the next dealer is the person at the
    next dealer seat."""
    by_seat = settle(result, 0, pool, rules, first=first)
    at = seat_persons(dealer_person)
    persons = [0] * PERSONS
    for seat, person in enumerate(at):
        persons[person] += by_seat.seats[seat]
    persons[(dealer_person + 2) % PERSONS] += by_seat.shouxing
    return Settlement(
        by_seat.seats, 0, by_seat.pool, dealer_person, at[by_seat.next_dealer], tuple(persons)
    )


def final_adjustment(scores: list[int], rules: RuleConfig) -> tuple[int, ...]:
    """RULES §8.7.1: the change the end-of-match 翻倍 and 加分 make to a two-player ledger (after
    the pool's share): the leader's positive score s is doubled (×ratio) while below
    ``final_double_below``, then gains ``final_bonus`` while below ``final_bonus_below``; the
    other seat ends at −s. Zeros where nothing applies."""
    if rules.players != 2 or max(scores) <= 0:
        return (0,) * len(scores)
    leader = 0 if scores[0] > scores[1] else 1
    s = scores[leader]
    if rules.final_double_below and s < rules.final_double_below:
        s *= rules.final_double_ratio
    if rules.final_bonus_below and s < rules.final_bonus_below:
        s += rules.final_bonus
    gain = s - scores[leader]
    return tuple(gain if k == leader else -gain for k in range(2))


@dataclass
class Match:
    """Hands in sequence until ``match_hands`` are played or a seat reaches ``score_target``.

    ``scores`` holds one entry per seat (``rules.players``), or per person with
    ``shouxing_rotation`` (four, RULES §8.6.1), where ``dealer`` is the dealer person."""

    rules: RuleConfig
    seed: int
    dealer: int = 0
    scores: list[int] = field(default_factory=list)
    shouxing: int = 0
    pool: int = 0
    hands: list[dict[str, Any]] = field(default_factory=list)
    settlements: list[Settlement] = field(default_factory=list)
    current: GameState | None = None
    final_share: tuple[int, ...] | None = None
    #: RULES §8.7.1: what the end-of-match 翻倍 and 加分 changed (two players), once applied
    final_adjust: tuple[int, ...] | None = None
    #: The match was ended before its end (``end_early``: a table's 解散).
    ended_early: bool = False

    def __post_init__(self) -> None:
        if not self.scores:
            self.scores = [0] * self.accounts

    @property
    def rotating(self) -> bool:
        """Whether four persons take turns at the three seats (RULES §2.1.1)."""
        return self.rules.shouxing_rotation

    @property
    def accounts(self) -> int:
        """The ledger's entries besides 守醒 and pool: the seats, or the four persons."""
        return PERSONS if self.rules.shouxing_rotation else self.rules.players

    @classmethod
    def new(cls, rules: RuleConfig | str = "anxiang", seed: int = 0) -> Match:
        """A new match; the first dealer is seat 0 or drawn from the seed (RULES §2.4); with a
        rotating 守醒, person 0 or one of the four drawn (RULES §8.4.1)."""
        config = get_rules(rules)
        among = PERSONS if config.shouxing_rotation else config.players
        dealer = 0 if config.first_dealer == "seat0" else random.Random(seed).randrange(among)
        return cls(config, seed, dealer)

    def pool_to_take(self) -> int | None:
        """The pool the next hand's winner could take (RULES §8.5.2: under ``"deal"`` it holds
        that hand's stakes), for rules that choose the winning layout with it (``liuzi_choice``,
        RULES §8.5.3); else None."""
        rules = self.rules
        if not (rules.liuzi and rules.liuzi_choice):
            return None
        pool = self.pool
        if stakes_before(rules, not self.hands):
            pool += rules.liuzi_dealer + rules.liuzi_other * (rules.players - 1)
        return pool

    def persons(self) -> tuple[int, ...]:
        """The persons at the seats of the next (or current) hand (RULES §2.1.1); the seats
        themselves without a rotating 守醒."""
        if self.rotating:
            return seat_persons(self.dealer)
        return tuple(range(self.rules.players))

    def shouxing_person(self) -> int | None:
        """The person sitting out the next (or current) hand, with a rotating 守醒."""
        return (self.dealer + 2) % PERSONS if self.rotating else None

    def hand_seed(self, number: int) -> int:
        """The seed of hand ``number`` (0-based), derived from the match seed."""
        return random.Random(f"{self.seed}:{number}").getrandbits(63)

    def is_over(self) -> bool:
        """Whether the match has ended."""
        if self.ended_early:
            return True
        if self.rules.score_target and max(self.scores) >= self.rules.score_target:
            return True
        return len(self.hands) >= self.rules.match_hands

    def start_hand(self) -> GameState:
        """Deal the next hand."""
        if self.is_over():
            raise WeimaqueError("the match is over")
        if self.current is not None and not self.current.is_terminal():
            raise WeimaqueError("the current hand is not finished")
        seat_dealer = 0 if self.rotating else self.dealer  # RULES §2.1.1: seat 0 deals
        self.current = GameState.new(
            self.rules, self.hand_seed(len(self.hands)), seat_dealer, self.pool_to_take()
        )
        self.current.scores = [self.scores[p] for p in self.persons()]
        return self.current

    def finish_hand(self) -> Settlement:
        """Settle the finished current hand and rotate the dealer."""
        state = self.current
        if state is None or state.result is None:
            raise WeimaqueError("no finished hand to settle")
        first = not self.hands
        if self.rotating:
            s = settle_persons(state.result, self.dealer, self.pool, self.rules, first=first)
            assert s.persons is not None
            for person, delta in enumerate(s.persons):
                self.scores[person] += delta
        else:
            s = settle(state.result, self.dealer, self.pool, self.rules, first=first)
            for seat, delta in enumerate(s.seats):
                self.scores[seat] += delta
        self.shouxing += s.shouxing
        self.pool += s.pool
        self.settlements.append(s)
        record = hand_record(state)
        record["settlement"] = s.to_dict()
        self.hands.append(record)
        self.dealer = s.next_dealer
        self.current = None
        if self.is_over():
            self._end()
        return s

    def _end(self) -> None:
        """The match's end: the pool shared (RULES §8.5.4), then 翻倍 and 加分 (§8.7.1)."""
        if self.pool:
            self._share_pool()
        if self.rules.players == 2 and (
            self.rules.final_double_below or self.rules.final_bonus_below
        ):
            adjust = final_adjustment(self.scores, self.rules)
            for seat, delta in enumerate(adjust):
                self.scores[seat] += delta
            self.final_adjust = adjust

    def end_early(self) -> None:
        """End the match now, settled as it stands (解散, the table agreeing to stop).

        A hand in progress is dropped: not scored, not counted, not recorded. The finished hands
        stand, and a 留子 pool still holding units is shared as at a normal end (RULES §8.5).
        """
        if self.is_over():
            raise WeimaqueError("the match is over")
        self.current = None
        self.ended_early = True
        self._end()

    def _share_pool(self) -> None:
        """The pool left at the end is shared equally; the odd units go from the dealer on [D]
        (RULES §8.5.4; among the four persons from the next dealer person on, §8.6.1)."""
        n = self.accounts
        base, odd = divmod(self.pool, n)
        share = [base] * n
        for k in range(odd):
            share[(self.dealer + k) % n] += 1
        for seat in range(n):
            self.scores[seat] += share[seat]
        self.pool = 0
        self.final_share = tuple(share)

    def ledger(self) -> dict[str, Any]:
        """Scores per seat (per person with a rotating 守醒: ``persons``), 守醒, pool; they sum
        to zero."""
        if self.rotating:
            return {"persons": list(self.scores), "shouxing": self.shouxing, "pool": self.pool}
        return {"seats": list(self.scores), "shouxing": self.shouxing, "pool": self.pool}

    def record(self) -> dict[str, Any]:
        """The match record, holding every hand record (``ended_early`` only when it was)."""
        out = {
            "version": MATCH_VERSION,
            "rules": self.rules.id,
            "overrides": overrides_of(self.rules),
            "seed": self.seed,
            "hands": self.hands,
            "final_pool_share": None if self.final_share is None else list(self.final_share),
            "ledger": self.ledger(),
        }
        if self.final_adjust is not None:
            out["final_adjustment"] = list(self.final_adjust)
        if self.ended_early:
            out["ended_early"] = True
        return out


def check_record_document(doc: Any) -> None:
    """Refuse a document that is no 偎麻雀 hand or match record, as ``wmq verify`` would: a
    match record (its hands and its rules), a server's ``{"record": …}`` or a hand record
    (docs/terminal.md, "Record files"); ``RecordError`` quoting what is wrong."""
    if not isinstance(doc, dict):
        raise RecordError(f"not a hand or match record: expected a JSON object: {quoted(doc)}")
    if "hands" in doc:
        check_match_record(doc)
        try:
            rules_with(doc["rules"], doc.get("overrides") or {})
        except WeimaqueError as exc:
            raise RecordError(f"match: {exc}") from exc
    elif "record" in doc:
        check_hand_record(doc["record"], "hand")
    elif "actions" in doc:
        check_hand_record(doc)
    else:
        raise RecordError(
            f"not a hand or match record: no hands, record or actions (keys: {quoted(sorted(doc))})"
        )


def check_match_record(record: Any) -> dict[str, Any]:
    """``record`` if it has the fields of a match record, each of its type and range."""
    if not isinstance(record, dict) or not isinstance(record.get("hands"), list):
        raise RecordError(f"not a match record: expected an object with hands: {quoted(record)}")
    if not isinstance(record.get("rules"), str):
        raise RecordError(f"match: rules must be a preset id, not {quoted(record.get('rules'))}")
    if not isinstance(record.get("overrides") or {}, dict):
        raise RecordError(f"match: overrides must be an object: {quoted(record['overrides'])}")
    seed = record.get("seed")
    if seed is not None and (type(seed) is not int or not -MAX_NUMBER <= seed <= MAX_NUMBER):
        raise RecordError(f"match: seed must be an integer, not {quoted(seed)}")
    if "seed_text" in record and record["seed_text"] != str(seed):
        raise RecordError(f"match: seed_text {quoted(record['seed_text'])} is not seed {seed}")
    hands = record["hands"]
    if len(hands) > MAX_HANDS:
        raise RecordError(f"match: {len(hands)} hands; a match has at most {MAX_HANDS}")
    for number, hand in enumerate(hands, 1):
        check_hand_record(hand, f"hand {number}")
    if record.get("ledger") is not None and not isinstance(record["ledger"], dict):
        raise RecordError(f"match: ledger must be an object, not {quoted(record['ledger'])}")
    if not isinstance(record.get("ended_early", False), bool):
        raise RecordError(f"match: ended_early must be a boolean: {quoted(record['ended_early'])}")
    return record


def replay_match(record: dict[str, Any]) -> Match:
    """Replay every hand of a match record and settle them again; the ledger must match.

    A record without its match seed (a match still being played on a server) starts from its
    first hand's dealer.
    """
    check_match_record(record)
    rules = rules_with(record["rules"], record.get("overrides") or {})
    if record.get("seed") is not None:
        match = Match.new(rules, record["seed"])
    else:
        first = record["hands"][0]["dealer"] if record["hands"] else 0
        if rules.shouxing_rotation and record["hands"]:
            # the hand's dealer is seat 0; the settlement names the dealer person (§2.1.1)
            settlement = record["hands"][0].get("settlement") or {}
            first = settlement.get("dealer", 0)
        match = Match(rules, 0, first)
    for hand in record["hands"]:
        match.current = replay(hand)
        if match.current.dealer != (0 if match.rotating else match.dealer):
            raise WeimaqueError("match record: a hand's dealer does not follow the rotation")
        match.finish_hand()
    if record.get("ended_early"):
        match.end_early()
    if record.get("ledger") is not None and match.ledger() != record["ledger"]:
        raise WeimaqueError("match replay does not reproduce the recorded ledger")
    return match
