"""A room's table: its seats, the match played on them and the hand in progress, and the
public room information (RoomInfo, docs/protocol.md §1) that follows from them.

The table holds state and answers questions about it; it sends nothing. The other parts of a
room (:mod:`.rooms`) act on it: the hand driver (:mod:`.driver`) deals and applies, the views
(:mod:`.views`) tell each connection what it may see, the automatic play (:mod:`.autoplay`)
keeps the clocks.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

from weimaque.errors import WeimaqueError
from weimaque.games.protocol import Game, Hand, MatchPlay, TableExtras, TableShape
from weimaque.games.registry import get_game
from weimaque.server.table.clocks import timed
from weimaque.server.table.options import DEFAULT_TURN_SECONDS, RoomError, RoomOptions
from weimaque.server.table.seats import Seating
from weimaque.server.table.votes import Rematch, Vote
from weimaque.server.wire.common import SeatId
from weimaque.server.wire.messages import Timer

Status = Literal["waiting", "playing", "between_hands", "over"]

#: Decision numbers per hand: a hand's decisions are numbered from ``hand_key * DECISION_SPAN``
#: (docs/protocol.md §2.2). A hand has far fewer events and actions than this (its stock holds
#: 22 cards), so numbers never repeat over a room's life.
DECISION_SPAN: Final = 10_000


@dataclass(frozen=True, slots=True)
class Setup:
    """What a room plays, through the game seam (``weimaque.games``, docs/new-game.md): its game,
    preset and options, the table's shape, and the game's ``"table"`` capability with its rule
    object where the game has it."""

    game: Game
    variant: str
    options: dict[str, Any]
    shape: TableShape
    extras: TableExtras | None
    rules: object | None

    @staticmethod
    def of(opts: RoomOptions, bots: bool = True) -> Setup:
        """The setup of a room's options; ``RoomError`` ``bad_options`` quoting a bad preset or
        option, ``bad_bots`` a bot the game does not offer (``bots``: its bots made once to
        check them; else only their seats)."""
        game = get_game(opts.game)
        options = dict(opts.options)
        extras = game if isinstance(game, TableExtras) else None
        try:
            # The game's own rule object first: its errors name the rule (RULES §7.3).
            rules = None if extras is None else extras.table_rules(opts.preset, options)
            variant = game.schema.variant(opts.preset).id
            game.schema.validate(options)
            shape = game.shape(variant, options)
        except WeimaqueError as exc:
            raise RoomError("bad_options", str(exc)) from exc
        for seat, spec in opts.bots.items():
            # where persons take turns at the seats, a bot is a person's (RULES §2.1.1)
            if not 0 <= seat < shape.people:
                place = "person" if shape.persons else "seat"
                raise RoomError("bad_bots", f"no {place} {seat} at a table of {shape.people}")
            if not bots:
                continue
            try:
                game.bot(spec, variant, options)
            except WeimaqueError as exc:
                raise RoomError("bad_bots", f"seat {seat}: {exc}") from exc
        return Setup(game, variant, options, shape, extras, rules)

    def new_match(self, seed: int) -> MatchPlay:
        """A fresh match of the room's game and rules."""
        return self.game.new_match(self.variant, self.options, seed)

    def rules_info(self) -> dict[str, Any]:
        """RoomInfo's ``rules``: id, name and the options changed from the preset."""
        if self.extras is not None:
            return self.extras.rules_info(self.rules)
        variant = self.game.schema.variant(self.variant)
        return {"id": variant.id, "name": variant.names.zh, "overrides": self.options}

    def rule_options(self) -> dict[str, Any]:
        """Every rule option of the table with its value, as a bot is told them
        (docs/bot-protocol.md ``hello``): the game's own where it has the ``"table"``
        capability, else the schema's defaults under the preset's values and the room's."""
        if self.extras is not None:
            return dict(self.extras.rule_options(self.rules))
        variant = self.game.schema.variant(self.variant)
        out: dict[str, Any] = {spec.key: spec.default for spec in self.game.schema.options}
        return out | dict(variant.options) | self.options

    def extra_viewers(self) -> tuple[str, ...]:
        """Viewers beyond the seats and the public (偎麻雀's 守醒)."""
        return () if self.extras is None else self.extras.extra_viewers(self.rules)

    def match_hands(self) -> int | None:
        """The hands of a match, where the rules count them (``match_hands``)."""
        value = self.options.get("match_hands")
        if value is None:
            value = self.game.schema.variant(self.variant).options.get("match_hands")
        if value is None:
            for spec in self.game.schema.options:
                if spec.key == "match_hands":
                    value = spec.default
        return value if isinstance(value, int) and not isinstance(value, bool) else None


def hand_summary(
    number: int, record: dict[str, Any], room_id: str, match: int = 1
) -> dict[str, Any]:
    """The summary of a finished hand (no deal, no actions): hand ``number`` of the room, played
    in its match ``match``."""
    result = record.get("result") or {}
    settlement = record.get("settlement") or {}
    # A game without the "table" capability: its winners are in the settlement the table keeps.
    winners = settlement.get("winners") if isinstance(settlement, dict) else None
    if isinstance(winners, list):
        winner = winners[0] if winners else None
    else:
        winner = result.get("winner") if isinstance(result, dict) else None
    return {
        "number": number,
        "match": match,
        "dealer": record.get("dealer"),
        "winner": winner,
        "total": result.get("total", 0) if isinstance(result, dict) else 0,
        "chou": winner is None,
        "settlement": record.get("settlement"),
        "record_url": f"/api/rooms/{room_id}/hands/{number}",
        "code": record.get("replay_code"),
        # who played each seat, persons taking turns at the seats (RULES §2.1.1)
        **({"seat_persons": record["seat_persons"]} if "seat_persons" in record else {}),
    }


class Table:
    """A table of a game's seats playing matches one after another (RULES §8.6): its state.

    The match is the game's ``MatchPlay`` and the hand in progress its ``Hand``
    (``weimaque.games.protocol``); the table keeps what the seam leaves to a platform: the
    records of the match's finished hands, the actions of the hand in progress, a match ended
    early, the countdown, the rest, a vote to 解散 and the 再来一局 window.

    Its fields are read by the room's other parts and changed only by the transitions below
    (``deal_hand``, ``commit_deal``, ``apply``, ``end_hand``, ``end_match``, ``next_match``,
    ``restore``, ``rest``/``wake``, ``start_countdown``/``stop_countdown``, the vote's and the
    再来一局 window's, ``close_after_hand``, ``attend``, and the server's ``configure``), each
    of which keeps these invariants (``check`` asserts them):

    - a hand is in progress only while the match is not over; ``actions`` are the actions taken
      in it (none between hands), and a new hand or the hand's end gives a new list;
    - ``last_hand`` (and the hand it tells of, ``last_state``) only between hands;
    - the deal's commitment and its secret together, and only while a hand is in progress;
    - a countdown to the next deal (``next_deadline``) only between hands of a match not over;
    - ``ended_by`` and ``closing`` only as the match ends: ``closing`` while a hand is played
      out before the match closes, ``ended_by`` only for a match ended early (``dissolved``);
    - a vote to 解散 only while the match is not over, the 再来一局 window only once it is;
    - ``attended`` names seats of the hand in progress or the last one.
    """

    def __init__(
        self,
        room_id: str,
        opts: RoomOptions,
        setup: Setup,
        seed: int,
        seating: Seating,
        created: float | None = None,
    ) -> None:
        """A table with a fresh match of ``seed``."""
        self.id = room_id
        self.opts = opts
        self.setup = setup
        self.seed = seed
        self.seating = seating
        self.created = created if created is not None else time.time()
        self.match: MatchPlay = setup.new_match(seed)
        #: The hand in progress, and the (seat, action id) taken in it so far.
        self.hand: Hand | None = None
        self.actions: list[tuple[int, int]] = []
        #: The records of the current match's finished hands, in order.
        self.records: list[dict[str, Any]] = []
        #: Where the bots' choices come from (one stream per match).
        self.rng = random.Random(f"{seed}:bots")
        #: The room's clock (monotonic seconds); a test may give a room a clock of its own.
        self.clock: Callable[[], float] = time.monotonic
        #: The least pause before an automatic move where no person holding a seat is connected
        #: (the server's ``unattended_delay_ms``; docs/protocol.md §6).
        self.unattended_delay = 0.0
        #: The match's number in the room (1 for the first; 再来一局 starts the next).
        self.match_number = 1
        #: (match number, record) of every finished hand of the room's earlier matches.
        self.archive: list[tuple[int, dict[str, Any]]] = []
        #: The current match was ended before its end (解散, a player who left, a room closed
        #: idle): settled as it stood.
        self.dissolved = False
        self.vote: Vote | None = None
        self.rematch: Rematch | None = None
        #: When each seat's last proposal to 解散 was refused.
        self.refused: dict[SeatId, float] = {}
        #: The ``hand_end`` payload of the last finished hand, and that hand, until the next deal.
        self.last_hand: dict[str, Any] | None = None
        self.last_state: Hand | None = None
        #: When the last hand ended (a table of bots deals the next after its bot delay).
        self.between_since = self.clock()
        #: Between hands: when the countdown deals the next hand (None: no countdown runs).
        self.next_deadline: float | None = None
        #: The published commitment to the hand in progress and its secret (docs/fairness.md).
        self.deal_commitment: str | None = None
        self.deal_secret: str | None = None
        #: The room's six-digit number, read out to join it (docs/protocol.md §1), if it has one.
        self.number: str | None = None
        #: Seconds a resting room waits for a player before its match is closed as it stands
        #: (the server's ``rest_seconds``; docs/protocol.md §2.4).
        self.rest_seconds = 600.0
        #: Since when no person holding a seat has been connected (None: someone is, or no
        #: person holds a seat): the room rests.
        self.empty_since: float | None = None
        #: The match ends as it stands once the hand in progress is over (a player who left).
        self.closing = False
        #: How the current match ended early: "vote" (解散), "leave" or "idle"; None if not.
        self.ended_by: str | None = None
        #: The seats whose player played the hand in progress themselves at some moment (not
        #: 托管 from its deal to its end): a hand none did counts nowhere (§7.4).
        self.attended: set[int] = set()

    # ----------------------------------------------------------------- state

    @property
    def game(self) -> Game:
        """The room's game (``Setup.game``)."""
        return self.setup.game

    @property
    def shape(self) -> TableShape:
        """The table's shape (``Setup.shape``)."""
        return self.setup.shape

    @property
    def rules(self) -> object | None:
        """The game's rule object (its ``"table"`` capability's), or None (``Setup.rules``)."""
        return self.setup.rules

    def is_over(self) -> bool:
        """Whether the current match is over (played out, or ended early)."""
        return self.dissolved or self.match.is_over()

    def check(self) -> None:
        """Assert the table's invariants (the class's docstring)."""
        over = self.is_over()
        if self.hand is None:
            assert not self.actions, "actions between hands"
            assert self.deal_commitment is None, "a commitment between hands"
            assert not self.closing, "closing between hands"
        else:
            assert not over, "a hand in progress in a match that is over"
            assert self.last_hand is None and self.last_state is None, "a last hand mid-hand"
            assert self.next_deadline is None, "a countdown mid-hand"
        assert (self.last_hand is None) == (self.last_state is None), "half a last hand"
        assert (self.deal_commitment is None) == (self.deal_secret is None), "half a commitment"
        if self.next_deadline is not None:
            assert not over and self.records, "a countdown with no next hand to deal"
        assert self.ended_by is None or self.dissolved, "ended_by for a match not ended early"
        assert self.vote is None or not over, "a vote in a match that is over"
        assert self.rematch is None or over, "再来一局 in a match not over"
        assert all(0 <= s < self.shape.seats for s in self.attended), "attended: no such seat"

    # ----------------------------------------------------------------- transitions

    def configure(self, unattended_delay: float, rest_seconds: float) -> None:
        """The server's limits: ``unattended_delay_ms`` (in seconds) and ``rest_seconds``."""
        self.unattended_delay = unattended_delay
        self.rest_seconds = rest_seconds

    def numbered(self, number: str | None) -> None:
        """The room's six-digit number is ``number`` (docs/protocol.md §1), or it has none."""
        self.number = number

    def deal_hand(self) -> Hand:
        """Deal the match's next hand (the match is not over, no hand is in progress): the
        countdown, the last hand and any commitment go, and nobody has attended it yet
        (``attend``)."""
        assert self.hand is None and not self.is_over()
        hand = self.hand = self.match.next_hand()
        self.actions = []
        self.next_deadline = None
        self.last_hand = self.last_state = None
        self.deal_commitment = self.deal_secret = None
        self.attended = set()
        return hand

    def commit_deal(self, commitment: str, secret: str) -> None:
        """The published commitment to the hand in progress and its secret (docs/fairness.md)."""
        assert self.hand is not None
        self.deal_commitment, self.deal_secret = commitment, secret

    def apply(
        self, seat: int, action: int, via: Callable[[Hand, int, int], object] | None = None
    ) -> Any:
        """Apply the seat's verified action to the hand in progress and note it; the hand's new
        events (``via``: applies it to the hand instead, as the gate replays a restored hand's
        actions; then nothing is returned)."""
        hand = self.hand
        assert hand is not None
        new = hand.apply(seat, action) if via is None else via(hand, seat, action)
        self.actions.append((seat, action))
        return new

    def attend(self, seat: int) -> None:
        """The seat's player plays the hand in progress themselves now (§7.4); none: nothing."""
        if self.hand is not None:
            self.attended.add(seat)

    def end_hand(
        self, record: dict[str, Any], hand_end: Callable[[Hand], dict[str, Any]]
    ) -> dict[str, Any]:
        """The terminal hand in progress is booked (``record``, the match having settled it):
        the table is between hands, and ``hand_end`` (called once booked) gives the hand's
        ``hand_end`` payload, kept until the next deal and returned. A match over with it
        closes its vote and stops closing."""
        hand = self.hand
        assert hand is not None and hand.is_terminal()
        self.records.append(record)
        self.hand, self.actions = None, []
        self.deal_commitment = self.deal_secret = None
        self.next_deadline = None
        self.between_since = self.clock()
        self.last_state = hand
        self.last_hand = last = hand_end(hand)
        if self.is_over():
            self.vote = None  # the match ended on its own: nothing left to vote on
            self.closing = False
        return last

    def end_match(self, ended_by: str | None) -> None:
        """The current match ends now, settled as it stands (the game settles what it keeps): a
        hand in progress is dropped unseen (its deal never revealed), a vote closed.
        ``ended_by``: "vote" (解散), "leave" or "idle" (None: a stored room that did not say)."""
        if self.setup.extras is not None:
            self.setup.extras.end_early(self.match)
        self.hand, self.actions = None, []
        self.dissolved = True
        self.ended_by = ended_by
        self.closing = False
        self.vote = None
        self.deal_commitment = self.deal_secret = None
        self.next_deadline = None

    def restore(
        self,
        match_number: int,
        archive: list[tuple[int, dict[str, Any]]],
        records: list[dict[str, Any]],
        last: Hand | None,
        hand_end: Callable[[Hand], dict[str, Any]],
    ) -> None:
        """The table as the store left it (docs/protocol.md §5), between hands: its match's
        number, the earlier matches' hands, and ``records``, the finished hands its match has
        booked again, ``last`` the last of them (``hand_end`` gives its payload once booked)."""
        assert self.hand is None and not self.records
        self.match_number = match_number
        self.archive = list(archive)
        self.records = list(records)
        if last is not None:
            self.last_state = last
            self.last_hand = hand_end(last)

    def rest(self) -> bool:
        """The room rests (no person holding a seat connected): no countdown; whether it was
        not resting already."""
        if self.empty_since is not None:
            return False
        self.empty_since = self.clock()
        self.next_deadline = None
        return True

    def wake(self) -> bool:
        """A player is back: the room rests no more; whether it was resting."""
        if self.empty_since is None:
            return False
        self.empty_since = None
        return True

    def start_countdown(self, seconds: float) -> None:
        """Between hands: the next hand is dealt in ``seconds``."""
        assert self.hand is None
        self.next_deadline = self.clock() + seconds

    def stop_countdown(self) -> None:
        """No countdown runs (a seat emptied between hands, a 再来一局 window decided)."""
        self.next_deadline = None

    def close_after_hand(self) -> None:
        """The match ends as it stands once the hand in progress is over (a player who left)."""
        assert self.hand is not None
        self.closing = True

    def open_vote(self, seat: SeatId, seconds: int) -> Vote:
        """The seat proposes to 解散 (no vote open, the match not over): the vote, open now."""
        assert self.vote is None and not self.is_over()
        self.vote = vote = Vote.open(seat, self.clock(), seconds)
        return vote

    def answer_vote(self, seat: SeatId, agree: bool) -> None:
        """The seat's answer to the open vote."""
        assert self.vote is not None
        self.vote.answers[seat] = agree

    def persons_moved(self, moved_to: dict[SeatId, SeatId]) -> None:
        """Persons took other seats for the next hand (RULES §2.1.1): an open vote's answers
        and a refused proposal's wait go with them (docs/protocol.md §2.4)."""
        if self.vote is not None:
            self.vote.moved(moved_to)
        self.refused = {moved_to.get(s, s): t for s, t in self.refused.items()}

    def close_vote(self, refused_at: float | None) -> None:
        """The open vote is decided; ``refused_at``: when it was refused (or lapsed), from
        when its proposer waits before proposing again."""
        vote = self.vote
        assert vote is not None
        self.vote = None
        if refused_at is not None:
            self.refused[vote.by] = refused_at

    def choose_rematch(self, seat: SeatId, seconds: int) -> Rematch:
        """The seat chooses 再来一局 (the match is over): the window, opened for ``seconds`` by
        the first choice."""
        assert self.is_over()
        if self.rematch is None:
            self.rematch = Rematch(self.clock() + seconds, seconds)
        self.rematch.chosen.add(seat)
        return self.rematch

    def close_rematch(self) -> None:
        """The 再来一局 window closes with nobody's choice taken up."""
        self.rematch = None

    # ----------------------------------------------------------------- what follows from it

    def scores(self) -> list[int]:
        """Each seat's points in the current match."""
        return list(self.match.ledger().seats)

    def ledger(self) -> dict[str, Any]:
        """The current match's accounts as JSON (``Ledger.to_json``)."""
        return self.match.ledger().to_json()

    @property
    def hand_number(self) -> int:
        """The room-wide number of the current (or last) hand; 0 before the room's first deal.

        Hands are numbered across the room's matches, so a number names one hand for good.
        """
        played = len(self.archive) + len(self.records)
        return played + (1 if self.hand is not None else 0)

    @property
    def hand_key(self) -> int:
        """A number of the current (or last) hand that grows with every hand dealt in the room.

        ``hand_number`` plus the matches before this one: a 解散 drops its hand and gives its
        number to the next hand dealt, which is the next match's, so only this never repeats.
        """
        return self.hand_number + self.match_number - 1

    @property
    def first_hand(self) -> int:
        """The room-wide number of the current match's first hand."""
        return len(self.archive) + 1

    @property
    def status(self) -> Status:
        """waiting, playing, between_hands or over."""
        if self.hand is not None:
            return "playing"
        if self.is_over():
            return "over"
        return "between_hands" if self.records else "waiting"

    @property
    def turn_seconds(self) -> int | None:
        """The turn timer in force: the room's, or none only while every player agrees.

        A room created without a timer (``turn_seconds`` null) plays without one only when every
        person at the table has agreed (``no_timer``); until then the default timer runs.
        """
        if self.opts.turn_seconds is not None:
            return self.opts.turn_seconds
        players = [s for s in self.seating.seats if s.kind == "human"]
        if all(s.taken and s.no_timer for s in players):
            return None
        return DEFAULT_TURN_SECONDS

    def decides_next(self, seat: int) -> bool:
        """Whether the seat's player is one the next deal waits for: a person at the table, not
        offline, not under 托管 nor watching (docs/protocol.md §2.4)."""
        s = self.seating.seats[seat]
        return (
            s.kind == "human"
            and s.taken
            and seat not in self.seating.offline
            and not (s.autoplay or s.away)
            and not (self.opts.autoplay_absent and not self.seating.present(seat))
        )

    def resting(self) -> bool:
        """Whether the room rests: a person holds a seat and none of them is connected
        (playing or watching). A resting room deals no hand (docs/protocol.md §2.4)."""
        people = [s for s, seat in enumerate(self.seating.seats) if seat.kind == "human"]
        return any(self.seating.seats[s].taken for s in people) and not any(
            self.seating.present(s) for s in people
        )

    def rest_deadline(self) -> float | None:
        """When a resting room's match is closed as it stands (None: it is not resting, or
        has no match under way to close)."""
        if self.empty_since is None or self.is_over():
            return None
        if not self.records and self.hand is None:
            return None  # nothing dealt yet: the seats are freed instead (§7)
        return self.empty_since + self.rest_seconds

    def seat_ready(self, seat: int) -> bool:
        """RoomInfo's ``ready``: a bot, or a taken seat the next deal does not wait for."""
        s = self.seating.seats[seat]
        if s.kind == "bot":
            return True
        return s.taken and (s.ready or not self.decides_next(seat))

    def info(self) -> dict[str, Any]:
        """RoomInfo (docs/protocol.md §1)."""
        now = self.clock()
        seats = []
        persons = self.persons_info()
        for s, seat in enumerate(self.seating.seats):
            seats.append(
                {
                    "seat": s,
                    "kind": seat.kind,
                    "bot": seat.bot,
                    "taken": seat.taken,
                    "name": seat.name,
                    "connected": seat.kind == "bot" or self.seating.connected(s),
                    "offline": s in self.seating.offline,
                    "autoplay": seat.autoplay,
                    "away": seat.away,
                    "no_timer": seat.no_timer,
                    "ready": self.seat_ready(s),
                    "player_id": seat.player,
                    **({} if persons is None else {"person": self.seating.person_of(s)}),
                }
            )
        sx = self.seating.shouxing
        return {
            "room_id": self.id,
            "game": self.game.info.id,
            "variant": self.setup.variant,
            "status": self.status,
            "rules": self.setup.rules_info(),
            "seats": seats,
            "shouxing": None
            if sx is None
            else {
                "taken": sx.taken,
                "name": sx.name,
                "connected": self.seating.connected("shouxing"),
                **(
                    {}
                    if persons is None
                    else {
                        "person": self.seating.person_of("shouxing"),
                        "kind": sx.kind,
                        "bot": sx.bot,
                    }
                ),
            },
            "persons": persons,
            "spectators": sum(1 for c in self.seating.conns if c.seat is None),
            "same_network": self.seating.same_network(),
            "club": self.opts.club,
            "public": self.opts.public,
            # A chosen seed makes a practice room: everyone sees it before sitting down.
            "practice": self.opts.seed is not None,
            **({} if self.opts.seed is None else {"practice_seed": self.opts.seed}),
            "turn_seconds": self.turn_seconds,
            "no_timer_asked": self.opts.turn_seconds is None,
            "autoplay_absent": self.opts.autoplay_absent,
            "bot_delay_ms": self.opts.bot_delay_ms,
            "next_seconds": self.opts.next_seconds,
            "vote_seconds": self.opts.vote_seconds,
            "hand_number": self.hand_number,
            "hands_played": len(self.records),
            "match_hands": self.setup.match_hands(),
            "match_over": self.is_over(),
            "match_number": self.match_number,
            "first_hand": self.first_hand,
            "dissolved": self.dissolved,
            "ended_by": self.ended_by,
            "number": self.number,
            "closing": self.closing,
            "resting": self.rest_info(now),
            "next_hand": self.next_hand_info(now),
            "vote": self.vote_info(now),
            "rematch": self.rematch_info(now),
        }

    def persons_info(self) -> list[dict[str, Any]] | None:
        """RoomInfo's ``persons`` where persons take turns at the seats (RULES §2.1.1): each
        person's place, in person order, with the seat it holds for the hand in progress or
        the next (``"shouxing"``: sitting out); None elsewhere."""
        persons = self.seating.persons
        if persons is None:
            return None
        where: dict[int, Any] = {id(s): k for k, s in enumerate(self.seating.seats)}
        if self.seating.shouxing is not None:
            where[id(self.seating.shouxing)] = "shouxing"
        out = []
        for p, seat in enumerate(persons):
            at = where[id(seat)]
            out.append(
                {
                    "person": p,
                    "seat": at,
                    "sits_out": at == "shouxing",
                    "kind": seat.kind,
                    "bot": seat.bot,
                    "taken": seat.taken,
                    "name": seat.name,
                    "connected": seat.kind == "bot" or self.seating.connected(at),
                    "player_id": seat.player,
                }
            )
        return out

    def rest_info(self, now: float) -> Timer | None:
        """While the room rests: the clock to the close of its match."""
        deadline = self.rest_deadline()
        if deadline is None:
            return None
        return timed(deadline, now, int(self.rest_seconds))

    def next_hand_info(self, now: float) -> Timer | None:
        deadline, seconds = self.next_deadline, self.opts.next_seconds
        if deadline is None or seconds is None or self.status != "between_hands":
            return None
        return timed(deadline, now, seconds)

    def vote_info(self, now: float) -> dict[str, Any] | None:
        vote = self.vote
        if vote is None:
            return None
        return {
            "kind": "dissolve",
            "by": vote.by,
            **timed(vote.deadline, now, vote.seconds),
            "answers": [vote.answers.get(s) for s in range(len(self.seating.seats))],
            "shouxing": None if self.seating.shouxing is None else vote.answers.get("shouxing"),
        }

    def rematch_info(self, now: float) -> dict[str, Any] | None:
        rematch = self.rematch
        if rematch is None:
            return None
        return {
            # A bot plays on in the next match: it has chosen.
            "chosen": [
                seat.kind == "bot" or s in rematch.chosen
                for s, seat in enumerate(self.seating.seats)
            ],
            "shouxing": None if self.seating.shouxing is None else "shouxing" in rematch.chosen,
            **timed(rematch.deadline, now, rematch.seconds),
        }

    def summaries(self) -> list[dict[str, Any]]:
        """Summaries of the current match's finished hands (numbered room-wide)."""
        first, match = self.first_hand, self.match_number
        return [hand_summary(first + n, rec, self.id, match) for n, rec in enumerate(self.records)]

    def all_summaries(self) -> list[dict[str, Any]]:
        """Summaries of every finished hand of the room, each with its match's number."""
        done = [(m, rec) for m, rec in self.archive]
        done += [(self.match_number, rec) for rec in self.records]
        return [hand_summary(n, rec, self.id, m) for n, (m, rec) in enumerate(done, 1)]

    def hand_record(self, number: int) -> tuple[int, dict[str, Any]] | None:
        """(match number, record) of the room's finished hand ``number``, or None."""
        if 1 <= number <= len(self.archive):
            return self.archive[number - 1]
        index = number - self.first_hand
        if 0 <= index < len(self.records):
            return self.match_number, self.records[index]
        return None

    def match_info(self) -> dict[str, Any]:
        """Match totals for snapshots."""
        return {
            "number": self.match_number,
            "scores": self.scores(),
            "ledger": self.ledger(),
            "hands_played": len(self.records),
            "match_hands": self.setup.match_hands(),
            "over": self.is_over(),
            "dissolved": self.dissolved,
            "hands": self.summaries(),
        }

    def match_record(self) -> dict[str, Any]:
        """The current match's record: its game (where not the default), rules, seed, finished
        hands and accounts, as ``wmq verify`` reads it (docs/fairness.md)."""
        extras = self.setup.extras
        summary = {} if extras is None else extras.match_summary(self.match)
        info = self.setup.rules_info()
        out: dict[str, Any] = {}
        if "version" in summary:
            out["version"] = summary["version"]
        if extras is None:
            out["game"] = self.game.info.id
        out |= {
            "rules": info["id"],
            "overrides": info["overrides"],
            "seed": self.seed,
            "hands": list(self.records),
            "final_pool_share": summary.get("final_pool_share"),
            # the game's own form where it gives one (偎麻雀's per person, RULES §8.6.1)
            "ledger": summary.get("ledger", self.ledger()),
        }
        if self.dissolved:
            out["ended_early"] = True
        return out

    def next_match(self) -> None:
        """再来一局: the finished match's hands go to the archive, and a fresh match begins with the
        same rules and a new seed (the OS CSPRNG's, or derived from a practice room's seed)."""
        self.archive.extend((self.match_number, rec) for rec in self.records)
        self.match_number += 1
        if self.opts.seed is None:
            self.seed = secrets.randbits(63)
        else:
            self.seed = random.Random(f"{self.opts.seed}:match:{self.match_number}").getrandbits(63)
        self.match = self.setup.new_match(self.seed)
        self.hand, self.actions, self.records = None, [], []
        self.rng = random.Random(f"{self.seed}:bots")
        self.dissolved = self.closing = False
        self.ended_by = None
        self.vote = self.rematch = None
        self.refused.clear()
        self.last_hand = self.last_state = None
        self.next_deadline = None

    def auto_delay(self) -> float:
        """Seconds before an automatic move: the room's ``bot_delay_ms``, and at least the
        server's ``unattended_delay_ms`` at a table where no person holding a seat is connected
        (a table of bots, or one its players left to 托管; docs/protocol.md §6)."""
        delay = self.opts.bot_delay_ms / 1000
        if delay < self.unattended_delay and not self.seating.anyone_present():
            return self.unattended_delay
        return delay


__all__ = ["DECISION_SPAN", "Status", "Table", "hand_summary"]
