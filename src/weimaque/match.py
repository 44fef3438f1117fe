"""A match: hands in sequence with dealer rotation, payments, 守醒 and 留子 (RULES §8).

The ledger holds each seat's points, the 守醒's and the 留子 pool; all of them always sum to zero.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Final

from weimaque.errors import RecordError, WeimaqueError, quoted
from weimaque.game.record import MAX_NUMBER, check_hand_record, hand_record, replay
from weimaque.game.state import NUM_SEATS, GameState, HandResult, xiajia
from weimaque.rules.config import RuleConfig
from weimaque.rules.registry import get_rules, overrides_of, rules_with

MATCH_VERSION: Final = 1
#: The most hands a match record may hold: the most a match may have (``RuleConfig``).
MAX_HANDS: Final = 10_000


@dataclass(frozen=True, slots=True)
class Settlement:
    """What one hand moved: per seat, to the 守醒, into (+) or out of (−) the pool."""

    seats: tuple[int, int, int]
    shouxing: int
    pool: int
    dealer: int
    next_dealer: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "seats": list(self.seats),
            "shouxing": self.shouxing,
            "pool": self.pool,
            "dealer": self.dealer,
            "next_dealer": self.next_dealer,
        }


def settle(result: HandResult, dealer: int, pool: int, rules: RuleConfig) -> Settlement:
    """Settle one finished hand (RULES §8.2-§8.5); ``pool`` is the 留子 pool before the deal."""
    seats = [0, 0, 0]
    shouxing = 0
    pool_delta = 0
    if rules.liuzi:
        # Before the deal: the dealer puts in liuzi_dealer, the others liuzi_other (RULES §8.5).
        for s in range(NUM_SEATS):
            stake = rules.liuzi_dealer if s == dealer else rules.liuzi_other
            seats[s] -= stake
            pool_delta += stake
    winner = result.winner
    if winner is None or result.breakdown is None:
        if rules.shouxing and rules.shouxing_liuju_reward:
            for s in range(NUM_SEATS):
                seats[s] -= rules.shouxing_liuju_reward
                shouxing += rules.shouxing_liuju_reward
        next_dealer = xiajia(dealer)
    else:
        total = result.breakdown.total
        for s in range(NUM_SEATS):
            if s != winner:
                seats[s] -= total
                seats[winner] += total
        if rules.shouxing:
            share = total // rules.shouxing_divisor  # RULES §8.4 [D]
            seats[winner] -= share
            shouxing += share
        hard = result.breakdown.hard_xi
        if rules.liuzi and hard >= rules.liuzi_min_xi:
            deng = hard - rules.liuzi_min_xi + 1  # 18 息 = 1 等, each further 息 one more
            take = min(pool + pool_delta, deng * rules.deng_value)
            seats[winner] += take
            pool_delta -= take
        if rules.dealer_rotation == "winner_deals":
            next_dealer = winner
        else:
            next_dealer = dealer if winner == dealer else xiajia(dealer)
    return Settlement((seats[0], seats[1], seats[2]), shouxing, pool_delta, dealer, next_dealer)


@dataclass
class Match:
    """Hands in sequence until ``match_hands`` are played or a seat reaches ``score_target``."""

    rules: RuleConfig
    seed: int
    dealer: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0, 0])
    shouxing: int = 0
    pool: int = 0
    hands: list[dict[str, Any]] = field(default_factory=list)
    settlements: list[Settlement] = field(default_factory=list)
    current: GameState | None = None
    final_share: tuple[int, int, int] | None = None
    #: The match was ended before its end (``end_early``: a table's 解散).
    ended_early: bool = False

    @classmethod
    def new(cls, rules: RuleConfig | str = "anxiang", seed: int = 0) -> Match:
        """A new match; the first dealer is seat 0 or drawn from the seed (RULES §2.4)."""
        config = get_rules(rules)
        dealer = 0 if config.first_dealer == "seat0" else random.Random(seed).randrange(NUM_SEATS)
        return cls(config, seed, dealer)

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
        self.current = GameState.new(self.rules, self.hand_seed(len(self.hands)), self.dealer)
        self.current.scores = list(self.scores)
        return self.current

    def finish_hand(self) -> Settlement:
        """Settle the finished current hand and rotate the dealer."""
        state = self.current
        if state is None or state.result is None:
            raise WeimaqueError("no finished hand to settle")
        s = settle(state.result, self.dealer, self.pool, self.rules)
        for seat in range(NUM_SEATS):
            self.scores[seat] += s.seats[seat]
        self.shouxing += s.shouxing
        self.pool += s.pool
        self.settlements.append(s)
        record = hand_record(state)
        record["settlement"] = s.to_dict()
        self.hands.append(record)
        self.dealer = s.next_dealer
        self.current = None
        if self.is_over() and self.pool:
            self._share_pool()
        return s

    def end_early(self) -> None:
        """End the match now, settled as it stands (解散, the table agreeing to stop).

        A hand in progress is dropped: not scored, not counted, not recorded. The finished hands
        stand, and a 留子 pool still holding units is shared as at a normal end (RULES §8.5).
        """
        if self.is_over():
            raise WeimaqueError("the match is over")
        self.current = None
        self.ended_early = True
        if self.pool:
            self._share_pool()

    def _share_pool(self) -> None:
        """The pool left at the end is shared equally; the odd units go from the dealer on [D]."""
        base, odd = divmod(self.pool, NUM_SEATS)
        share = [base] * NUM_SEATS
        for k in range(odd):
            share[(self.dealer + k) % NUM_SEATS] += 1
        for seat in range(NUM_SEATS):
            self.scores[seat] += share[seat]
        self.pool = 0
        self.final_share = (share[0], share[1], share[2])

    def ledger(self) -> dict[str, Any]:
        """Scores per seat, 守醒, pool; they sum to zero."""
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
        if self.ended_early:
            out["ended_early"] = True
        return out


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
        match = Match(rules, 0, first)
    for hand in record["hands"]:
        match.current = replay(hand)
        if match.current.dealer != match.dealer:
            raise WeimaqueError("match record: a hand's dealer does not follow the rotation")
        match.finish_hand()
    if record.get("ended_early"):
        match.end_early()
    if record.get("ledger") is not None and match.ledger() != record["ledger"]:
        raise WeimaqueError("match replay does not reproduce the recorded ledger")
    return match
