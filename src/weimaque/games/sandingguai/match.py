"""A match of 三丁拐: a fixed number of hands with the dealer's rotation and a ledger that
always sums to zero (SDG §9.5, §9.6).

The match seed decides the first dealer (option ``first_dealer = random``) and each hand's
seed, so a match is fully described by (rules, seed, the actions of its hands).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from weimaque.errors import IllegalAction, quoted
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.state import NUM_SEATS, State


@dataclass(frozen=True, slots=True)
class HandEntry:
    """One finished hand in the ledger: its seed, dealer and streak, net, and who deals next."""

    seed: int
    dealer: int
    streak: int
    net: tuple[int, int, int]
    next_dealer: int
    next_streak: int


class Match:
    """Hands in sequence (SDG §9.6): :meth:`next_hand` deals, :meth:`finish` books it."""

    def __init__(self, rules: RuleConfig | None = None, seed: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise IllegalAction(f"match seed must be an int, not {quoted(seed)}")
        self.rules = rules or RuleConfig()
        self.seed = seed
        self._rng = random.Random(seed)
        self.dealer = self._rng.randrange(NUM_SEATS) if self.rules.first_dealer == "random" else 0
        self.streak = 1
        self.ledger = [0, 0, 0]
        self.hands: list[HandEntry] = []
        self._current: State | None = None

    def is_over(self) -> bool:
        """Whether every hand of the match has been played."""
        return len(self.hands) >= self.rules.match_hands

    def next_hand(self) -> State:
        """Deal the next hand (its seed drawn from the match seed)."""
        if self.is_over():
            raise IllegalAction(f"the match is over after {len(self.hands)} hands")
        if self._current is not None:
            raise IllegalAction("the current hand is not finished")
        self._current = State(self.rules, self._rng.getrandbits(63), self.dealer, self.streak)
        return self._current

    def finish(self, state: State) -> HandEntry:
        """Book a finished hand: the ledger, the next dealer and his streak (SDG §9.5)."""
        if state is not self._current or state.result is None:
            raise IllegalAction("finish() takes the current hand, once it is over")
        settlement = state.result.settlement
        assert state.seed is not None
        entry = HandEntry(
            state.seed,
            state.dealer,
            state.streak,
            settlement.net,
            settlement.next_dealer,
            settlement.next_streak,
        )
        for s in range(NUM_SEATS):
            self.ledger[s] += settlement.net[s]
        self.hands.append(entry)
        self.dealer, self.streak = settlement.next_dealer, settlement.next_streak
        self._current = None
        return entry

    @property
    def scores(self) -> tuple[int, int, int]:
        """Each seat's points so far."""
        return self.ledger[0], self.ledger[1], self.ledger[2]


def play_match(rules: RuleConfig | None, seed: int, choose: Callable[[State], int]) -> Match:
    """A whole match, every decision taken by ``choose(state)``."""
    match = Match(rules, seed)
    while not match.is_over():
        state = match.next_hand()
        while not state.is_terminal():
            state.apply(choose(state))
        match.finish(state)
    return match
