"""Decisions against a real ``wmq serve``: their numbers and their clocks (docs/protocol.md §2.2,
§3).

A decision's clock runs from the moment it is posed until it ends (an action, by the player or
by 托管): 取消托管, 旁观 and back, or agreeing to play without a timer never restart it. Every
view names its decision, every ``act`` names the one it answers, and an act for a decision that
is gone is refused as ``stale`` (two tabs of one seat can never both act on one decision). The
number tells a seat nothing it may not know: it is counted from what the seat was shown.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.serverkit import Client, Msg, Server, running
from weimaque.server.table.options import DEFAULT_TURN_SECONDS
from weimaque.server.table.table import DECISION_SPAN

#: The turn timer of the clock tests, and how late past it 托管 may play (a loaded machine).
TURN = 2
SLACK = 1.5


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Hundreds of windows in a few seconds: rates well above a person's.
    rates = {"ws_burst": 5000, "ws_rate": 5000, "ws_address_burst": 5000, "ws_address_rate": 5000}
    with running(tmp_path_factory.mktemp("clocks"), {"room_burst": 1000, **rates}) as s:
        yield s


class Tab:
    """One connection, remembering its latest view and whether it is seated."""

    def __init__(self, client: Client) -> None:
        self.c = client
        self.view: Msg = {}
        self.seated = False
        self.token: str | None = None
        #: a ``hand_end`` came and nobody has sent ``next`` for it yet
        self.ended = False

    def send(self, **fields: Any) -> int:
        return self.c.send(**fields)

    def recv(self, timeout: float) -> Msg | None:
        try:
            msg = self.c.recv(timeout)
        except TimeoutError:
            return None
        if msg["type"] == "welcome":
            self.seated = isinstance(msg["seat"], int)
            self.token = msg["token"] or self.token
        elif msg["type"] in ("snapshot", "events"):
            self.view = msg
        elif msg["type"] == "hand_end":
            self.ended = True
        return msg

    def drain(self, wait: float = 0.0) -> list[Msg]:
        out = []
        while (msg := self.recv(wait)) is not None:
            out.append(msg)
        return out

    def answer(self, msg_id: int, timeout: float = 10.0) -> Msg:
        """The ``ack`` or ``error`` answering message ``msg_id`` (views are kept meanwhile)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            msg = self.recv(end - time.monotonic())
            if msg is None:
                continue
            if (msg["type"] == "ack" and msg["ack"] == msg_id) or (
                msg["type"] == "error" and msg.get("re") == msg_id
            ):
                return msg
        raise AssertionError(f"no answer to message {msg_id}")

    def until(self, pred: Callable[[Msg], bool], timeout: float = 10.0) -> Msg:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            msg = self.recv(end - time.monotonic())
            if msg is not None and pred(msg):
                return msg
        raise AssertionError("timed out")


def seat_tab(server: Server, room_id: str, seat: int) -> Tab:
    tab = Tab(server.ws(room_id))
    tab.send(type="join")
    tab.send(type="sit", seat=seat, name=f"p{seat}")
    tab.until(lambda m: m["type"] == "welcome" and m["seat"] == seat)
    return tab


def second_tab(server: Server, room_id: str, token: str) -> Tab:
    """Another connection of the seat that holds ``token``."""
    tab = Tab(server.ws(room_id))
    i = tab.send(type="join", token=token)
    tab.until(lambda m: m["type"] == "snapshot" and m.get("re") == i)
    return tab


def legal(view: Msg) -> list[str]:
    return [a["text"] for a in view.get("legal_actions") or []]


# ---------------------------------------------------------------------- the clock of a decision


def time_decisions(
    server: Server, attack: Callable[[Tab], None], decisions: int = 3, **options: Any
) -> list[float]:
    """Seat 0 never acts and runs ``attack`` every 0.4 s; seats 1 and 2 answer at once.

    Returns, for each of seat 0's first ``decisions`` decisions, the seconds from its first
    view of the decision to the view that shows it ended (played by 托管). 托管's own delay
    (``bot_delay_ms``) is set longer than the timer so only the timer can end a decision.
    """
    body = {"seed": 31, "turn_seconds": TURN, "bot_delay_ms": 3000, "next_seconds": 3}
    room_id = server.room(**{**body, **options})["room_id"]
    tabs = {s: seat_tab(server, room_id, s) for s in range(3)}
    attacker = tabs[0]
    answered: set[tuple[int, int]] = set()
    current: tuple[int, float] | None = None  # (decision, when first seen)
    spans: list[float] = []
    last_attack = 0.0
    deadline = time.monotonic() + 30 + decisions * (TURN + SLACK)
    try:
        while len(spans) < decisions:
            assert time.monotonic() < deadline, f"托管 played {len(spans)} decisions: {spans}"
            for seat, tab in tabs.items():
                while (m := tab.recv(0.01)) is not None:  # one at a time: ``seated`` as it was
                    now = time.monotonic()
                    if m["type"] == "hand_end":
                        tab.send(type="next")
                    if seat != 0 or not tab.seated or m["type"] not in ("snapshot", "events"):
                        if seat == 0 and m["type"] == "hand_end" and current is not None:
                            spans.append(now - current[1])
                            current = None
                        continue
                    decision = m["decision"]
                    if current is not None and (not m["to_act"] or decision != current[0]):
                        spans.append(now - current[1])  # it ended: only 托管 plays seat 0
                        current = None
                    if m["to_act"] and current is None:
                        current = (decision, now)
                view = tab.view
                if seat != 0 and legal(view) and (seat, view["decision"]) not in answered:
                    answered.add((seat, view["decision"]))
                    tab.send(type="act", action=legal(view)[0], decision=view["decision"])
            if time.monotonic() - last_attack >= 0.4:
                last_attack = time.monotonic()
                attack(attacker)
    finally:
        for tab in tabs.values():
            tab.c.close()
    return spans


def cancel_autoplay(tab: Tab) -> None:
    tab.send(type="autoplay", on=False)


def watch_and_sit_back(tab: Tab) -> None:
    tab.send(type="spectate")
    tab.send(type="join", token=tab.token)


@pytest.mark.parametrize(
    "attack", [cancel_autoplay, watch_and_sit_back], ids=["autoplay_off", "spectate_join"]
)
def test_the_timer_runs_out_whatever_the_player_sends(
    server: Server, attack: Callable[[Tab], None]
) -> None:
    spans = time_decisions(server, attack)
    # A timer the attack restarted would never run out: no decision would end. Each ends near
    # the turn's length (a machine under load may stall one: the middle one is held to it).
    assert spans and sorted(spans)[len(spans) // 2] <= TURN + SLACK, spans
    assert max(spans) <= 4 * TURN, spans


def test_no_timer_changes_the_timer_from_the_next_decision(server: Server) -> None:
    # A room created without a timer plays the default one until every player agrees to go
    # without; agreeing, or taking it back, never moves the deadline of a decision posed.
    room_id = server.room(seed=31, turn_seconds=None, bots={"1": "random", "2": "random"})[
        "room_id"
    ]
    tab = seat_tab(server, room_id, 0)
    try:
        view = tab.until(lambda m: m["type"] in ("snapshot", "events") and m["to_act"], 20)
        first = view["timer"]
        assert first is not None and first["seconds"] == DEFAULT_TURN_SECONDS
        decision = view["decision"]
        answers = []
        for agree in (True, False, True, False, True):
            time.sleep(0.3)
            i = tab.send(type="no_timer", agree=agree)
            answers.append(tab.until(lambda m, i=i: m["type"] == "snapshot" and m.get("re") == i))
        for snap in answers:
            assert snap["decision"] == decision and snap["to_act"]
            # The same deadline (the wall clock's jitter aside), never a fresh one.
            assert abs(snap["timer"]["deadline_ms"] - first["deadline_ms"]) <= 100, snap["timer"]
            assert snap["timer"]["seconds"] == first["seconds"]
        assert answers[-1]["timer"]["left_ms"] <= first["left_ms"] - 1200
        # Everyone now agrees: the room has no timer, the decision posed keeps its own.
        assert answers[-1]["room"]["turn_seconds"] is None
        i = tab.send(type="act", action=legal(answers[-1])[0], decision=decision)
        assert tab.answer(i)["type"] == "ack"
        after = tab.until(
            lambda m: (
                m["type"] in ("snapshot", "events") and m["to_act"] and m["decision"] > decision
            ),
            20,
        )
        assert after["timer"] is None
    finally:
        tab.c.close()


# ---------------------------------------------------------------------- decision numbers


def test_two_tabs_passing_in_one_window_apply_one_pass(server: Server) -> None:
    # Both connections of seat 0 answer 过 to the same claim window, one right after the other,
    # in many windows: exactly one is applied, the other is stale, every time.
    room_id = server.room(
        seed=7,
        turn_seconds=None,
        bot_delay_ms=0,
        bots={"1": "random", "2": "random"},
        options={"match_hands": 100},
    )["room_id"]
    a = seat_tab(server, room_id, 0)
    assert a.token is not None
    b = second_tab(server, room_id, a.token)
    windows: dict[int, int] = {}  # hand number → windows of seat 0 tried in it
    order = [a, b]
    try:
        deadline = time.monotonic() + 120
        while sum(windows.values()) < 400:
            assert time.monotonic() < deadline, f"{windows} windows"
            a.drain(0.005)
            b.drain(0.0)
            if a.ended:
                a.ended = False
                a.send(type="next")
            view = a.view
            if not legal(view) or view["type"] not in ("snapshot", "events"):
                continue
            decision = view["decision"]
            a.view = {}  # answered below; the next view is on its way
            if "过" not in legal(view):
                i = a.send(type="act", action=legal(view)[0], decision=decision)
                assert a.answer(i)["type"] == "ack"
                continue
            # The other tab shows the same decision, under the same number.
            if not (b.view.get("decision") == decision and b.view.get("to_act")):
                b.until(lambda m, d=decision: m.get("decision") == d and bool(m.get("to_act")))
            b.view = {}
            order.reverse()
            first, second = order
            i = first.send(type="act", action="过", decision=decision)
            j = second.send(type="act", action="过", decision=decision)
            answers = [first.answer(i), second.answer(j)]
            kinds = sorted(m["type"] for m in answers)
            assert kinds == ["ack", "error"], answers
            error = next(m for m in answers if m["type"] == "error")
            assert error["code"] == "stale", error
            assert f"decision {decision} is gone" in error["message"]
            hand = view["hand_number"]
            windows[hand] = windows.get(hand, 0) + 1
        a.send(type="dissolve")  # the match ends here; its finished hands are on record
        a.until(lambda m: m["type"] == "match_end")
        # Nothing was applied twice: in each finished hand seat 0 said 过 once per window.
        summaries = server.get(f"/api/rooms/{room_id}/hands")["hands"]
        assert len(summaries) >= 20
        for summary in summaries:
            record = server.get(summary["record_url"])["record"]
            passes = sum(1 for s, text in record["actions"] if s == 0 and text == "过")
            assert passes == windows.get(summary["number"], 0), summary["number"]
    finally:
        a.c.close()
        b.c.close()


def test_an_old_decision_is_refused_and_the_game_goes_on(server: Server) -> None:
    room_id = server.room(
        seed=3, turn_seconds=None, bot_delay_ms=0, bots={"1": "random", "2": "random"}
    )["room_id"]
    tab = seat_tab(server, room_id, 0)
    try:
        tab.until(lambda m: m["type"] in ("snapshot", "events") and bool(m["to_act"]), 20)
        # Without a decision an act is refused, quoting the missing field; nothing is applied.
        i = tab.send(type="act", action=legal(tab.view)[0])
        error = tab.answer(i)
        assert error["code"] == "bad_message", error
        assert error["message"] == "bad act message: decision: Field required", error
        old = tab.view
        i = tab.send(type="act", action=legal(old)[0], decision=old["decision"])
        assert tab.answer(i)["type"] == "ack"
        view = tab.until(
            lambda m: (
                m["type"] in ("snapshot", "events")
                and bool(m["to_act"])
                and m["decision"] != old["decision"]
            ),
            20,
        )
        assert view["decision"] > old["decision"]
        # The answer to the old view, sent again (a second click, a late tab): stale.
        for action in {legal(old)[0], *legal(view)}:
            i = tab.send(type="act", action=action, decision=old["decision"])
            error = tab.answer(i)
            assert error["code"] == "stale", error
            assert str(old["decision"]) in error["message"], error
        # A number never shown (from the future) is refused as well.
        i = tab.send(type="act", action=legal(view)[0], decision=view["decision"] + 1)
        assert tab.answer(i)["code"] == "stale"
        # Nothing was applied: the seat still has the same decision, and plays it.
        i = tab.send(type="hints", on=False)
        snap = tab.until(lambda m: m["type"] == "snapshot" and m.get("re") == i)
        assert snap["decision"] == view["decision"] and legal(snap) == legal(view)
        i = tab.send(type="act", action=legal(view)[0], decision=view["decision"])
        assert tab.answer(i)["type"] == "ack"
    finally:
        tab.c.close()


def test_a_dropped_hands_decision_numbers_are_never_given_again(server: Server) -> None:
    # 解散 drops the hand in progress and gives its number to the next hand dealt (in the next
    # match): its decisions are numbered above every one of the dropped hand. A friend under
    # 托管 at seat 1 agrees (with only bots to agree the hand would be played out instead).
    room_id = server.room(seed=3, turn_seconds=None, bot_delay_ms=0, bots={"2": "random"})[
        "room_id"
    ]
    tab = seat_tab(server, room_id, 0)
    friend = seat_tab(server, room_id, 1)
    friend.send(type="autoplay", on=True)
    seen: list[int] = []
    try:
        for _ in range(3):
            view = tab.until(lambda m: m["type"] in ("snapshot", "events") and bool(m["to_act"]))
            seen.append(view["decision"])
            i = tab.send(type="act", action=legal(view)[0], decision=view["decision"])
            assert tab.answer(i)["type"] == "ack"
        view = tab.until(lambda m: m["type"] in ("snapshot", "events") and bool(m["to_act"]))
        dropped, old = view["hand_number"], view["decision"]
        tab.send(type="dissolve")
        friend.send(type="vote", agree=True)  # the bot agrees too: it passes
        tab.until(lambda m: m["type"] == "match_end" and m["dissolved"])
        i = tab.send(type="act", action=legal(view)[0], decision=old)
        assert tab.answer(i)["code"] == "stale"
        friend.send(type="rematch")
        tab.send(type="rematch")  # both people seated chose it: the next match starts at once
        snap = tab.until(lambda m: m["type"] == "snapshot" and m["room"]["match_number"] == 2)
        assert snap["hand_number"] == dropped
        assert snap["decision"] > max([*seen, old])
        if not snap["to_act"]:
            snap = tab.until(lambda m: m["type"] in ("snapshot", "events") and bool(m["to_act"]))
        view = snap
        assert view["decision"] > old
        i = tab.send(type="act", action=legal(view)[0], decision=old)
        assert tab.answer(i)["code"] == "stale"
        i = tab.send(type="act", action=legal(view)[0], decision=view["decision"])
        assert tab.answer(i)["type"] == "ack"
    finally:
        tab.c.close()
        friend.c.close()


def test_a_decision_number_counts_only_what_the_seat_was_shown(server: Server) -> None:
    # Seat 0 and a spectator check every number they are sent against what they know: the hand,
    # the events they were shown, the actions seat 0 took itself. Nothing else enters it: not
    # the other seats' secret answers in claim windows (their 过, a declined 胡), nor whether
    # they had an option at all (docs/protocol.md §2.3).
    room_id = server.room(
        seed=11,
        turn_seconds=None,
        bot_delay_ms=0,
        bots={"1": "random", "2": "random"},
        options={"match_hands": 4},
    )["room_id"]
    tab = seat_tab(server, room_id, 0)
    spectator = Tab(server.ws(room_id))
    spectator.send(type="join")
    rng = random.Random(5)
    known = {"seat": [0, 0, 0], "spectator": [0, 0, 0]}  # hand, events seen, own actions
    checked = {"seat": 0, "spectator": 0}
    decisions: list[int] = []
    ended = 0
    try:
        deadline = time.monotonic() + 60
        while ended < 4:
            assert time.monotonic() < deadline
            for name, t in (("seat", tab), ("spectator", spectator)):
                for m in t.drain(0.005):
                    hand, seen, own = k = known[name]
                    if m["type"] == "ack" and m["actor"]["seat"] == 0:
                        k[2] = own + 1
                    elif m["type"] == "snapshot":
                        k[:] = [m["hand_number"], len(m["history"]), own]
                        if m["hand_number"] != hand:
                            k[2] = 0
                    elif m["type"] == "events":
                        assert m["hand_number"] == hand and m["from"] == seen, m
                        k[1] = seen + len(m["events"])
                    elif m["type"] == "hand_end" and name == "seat":
                        ended += 1
                        tab.send(type="next")
                    if m["type"] in ("snapshot", "events"):
                        if m["decision"] is None:  # between hands: no decision at all
                            assert m["type"] == "snapshot" and m["room"]["status"] != "playing"
                            continue
                        expected = k[0] * DECISION_SPAN + k[1] + k[2]  # in the room's 1st match
                        assert m["decision"] == expected, (name, m["decision"], k)
                        checked[name] += 1
                        if name == "seat" and m["to_act"] and m["decision"] not in decisions[-1:]:
                            decisions.append(m["decision"])
            view = tab.view
            if legal(view) and (not decisions or view["decision"] == decisions[-1]):
                # Its ack (counted above) and news come through the loop.
                tab.send(type="act", action=rng.choice(legal(view)), decision=view["decision"])
                tab.view = {}
        # The seat's decisions are numbered in increasing order, each once.
        assert all(x < y for x, y in itertools.pairwise(decisions))
        assert len(decisions) > 20
        assert checked["spectator"] > 20
        # The other seats answered in secret many times: those answers are in no number.
        hidden = 0
        for summary in server.get(f"/api/rooms/{room_id}/hands")["hands"]:
            record = server.get(summary["record_url"])["record"]
            hidden += sum(1 for s, text in record["actions"] if s != 0 and text in ("过", "胡"))
        assert hidden > 0
    finally:
        tab.c.close()
        spectator.c.close()
