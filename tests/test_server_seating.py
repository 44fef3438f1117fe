"""A room's ``Seating`` on its own: who is present, when a seat left without a connection goes
offline (docs/protocol.md §3), and what giving a seat up clears."""

from __future__ import annotations

import math

from weimaque.server.table.seats import Conn, Seat, Seating, hash_token


class Silent:
    def send(self, message: object) -> None:
        pass

    def fail(self, reason: str) -> None:
        pass


def seating(grace: float = 5.0) -> Seating:
    seats = [Seat("human", token=hash_token("a" * 24)), Seat("bot", "random"), Seat("human")]
    return Seating(seats, Seat("human"), grace)


def test_a_seat_left_without_a_connection_goes_offline_after_the_grace_and_comes_back() -> None:
    s = seating()
    conn = Conn(Silent(), seat=0)
    s.conns.add(conn)
    assert s.present(0) and s.connected(0) and s.anyone_present()
    assert s.next_offline(100.0) == math.inf  # the seat is held: nothing to wait for
    s.left(conn, 100.0)
    assert not s.present(0) and not s.anyone_present()
    assert s.next_offline(101.0) == 105.0
    assert not s.mark_offline(104.9) and s.offline == set()
    assert s.mark_offline(105.0) and s.offline == {0}
    assert not s.mark_offline(106.0)  # already marked: no change to tell anyone
    assert s.next_offline(106.0) == math.inf
    s.back(0)
    s.conns.add(Conn(Silent(), seat=0))
    assert s.offline == set() and s.gone == {} and not s.offline_by(0, 1e9)


def test_watching_keeps_the_seat_present_and_an_empty_seat_is_never_offline() -> None:
    s = seating()
    s.conns.add(Conn(Silent(), seat=None, held=0))  # watching (旁观) with the seat's token
    assert s.present(0) and not s.connected(0)
    assert not s.offline_by(0, 1e9)
    assert not s.offline_by(2, 1e9)  # nobody holds seat 2
    assert not s.offline_by(1, 1e9)  # a bot is never offline


def test_giving_a_seat_up_clears_its_token_and_marks() -> None:
    s = seating(grace=0.0)
    s.seats[0].autoplay = s.seats[0].ready = True
    s.left(Conn(Silent(), seat=0), 10.0)
    assert s.mark_offline(10.0) and s.offline == {0}
    assert s.people() == [0]
    s.clear(0)
    seat = s.seats[0]
    assert seat.token is None and not (seat.autoplay or seat.ready) and not seat.taken
    assert s.offline == set() and s.gone == {} and s.people() == []
    assert s.to_store()["seats"][0]["token"] is None
    assert s.find("a" * 24) is None


def test_same_network_names_two_seats_from_one_address_only() -> None:
    s = seating()
    s.conns.update({Conn(Silent(), seat=0, address="10.0.0.1"), Conn(Silent(), address="10.0.0.1")})
    assert not s.same_network()  # a spectator beside a player is not a second seat
    s.conns.add(Conn(Silent(), seat=0, address="10.0.0.1"))
    assert not s.same_network()  # two tabs of one seat
    s.conns.add(Conn(Silent(), seat=2, address="10.0.0.1"))
    assert s.same_network()
