"""A small game client for the container check: the HTTP API with urllib and
the game socket with websockets' sync client, as protocol.md describes them.

It plays the way a phone does, through one address (the stack's published
port): create and join a room, `hello`, `start`, `ready` (R16.2), then one turn
of `draw` from the stock and `discard`, waiting for `turn.may_start_at`
(R10.4) as the web client does.
"""

from __future__ import annotations

import contextlib
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

View = dict[str, Any]


@dataclass(frozen=True)
class Seat:
    """A seat as `POST /api/rooms` or `.../players` hands it out."""

    code: str
    player_id: str
    token: str


def http(base: str, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """One JSON request; (status, decoded body or None). Never raises on 4xx/5xx."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            raw, status = resp.read(), resp.status
    except urllib.error.HTTPError as err:
        raw, status = err.read(), err.code
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw.decode(errors="replace")


def _seat(base: str, path: str, name: str) -> Seat:
    status, body = http(base, "POST", path, {"name": name})
    assert status == 201, f"POST {path}: {status} {body}"
    return Seat(body["code"], body["player_id"], body["token"])


def create_room(base: str, name: str) -> Seat:
    return _seat(base, "/api/rooms", name)


def join_room(base: str, code: str, name: str) -> Seat:
    return _seat(base, f"/api/rooms/{code}/players", name)


class Player:
    """One game socket that has said `hello`; `view` is the latest table."""

    def __init__(self, ws_base: str, seat: Seat, timeout_s: float = 10) -> None:
        self.seat = seat
        self._closing = contextlib.ExitStack()
        self.ws: ClientConnection = self._closing.enter_context(
            connect(f"{ws_base}/ws/{seat.code}", open_timeout=timeout_s)
        )
        self.send({"type": "hello", "token": seat.token})
        try:
            first = self._recv(timeout_s)
        except ConnectionClosed as closed:
            self.close()
            code = closed.rcvd.code if closed.rcvd else None
            raise AssertionError(
                f"room {seat.code}: hello refused, socket closed with {code} "
                "(4401: the room or the seat is gone)"
            ) from None
        assert first["type"] == "update", f"hello answered with {first}"
        self.view: View = first["view"]
        self.now_ms: int = first["now"]
        self.events: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def _recv(self, timeout_s: float) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout_s))
        return message

    def wait(
        self, done: Callable[[View], bool], timeout_s: float = 15, what: str = "as expected"
    ) -> View:
        """Read updates until `done(view)`; errors from the server fail at once."""
        deadline = time.monotonic() + timeout_s
        while not done(self.view):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no update {what} in {timeout_s} s: {self.view}")
            try:
                message = self._recv(left)
            except TimeoutError:
                continue
            if message["type"] == "error":
                self.errors.append(message)
                raise AssertionError(f"server refused a message: {message}")
            self.view, self.now_ms = message["view"], message["now"]
            self.events.extend(message["events"])
        return self.view

    def wait_closed(self, timeout_s: float) -> int | None:
        """Read until the server closes the socket; its close code."""
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline:
                self.ws.recv(timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            raise AssertionError(f"the socket stayed open for {timeout_s} s") from None
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None
        raise AssertionError(f"the socket stayed open for {timeout_s} s")

    def close(self) -> None:
        self._closing.close()


def my_turn(player: Player) -> Callable[[View], bool]:
    me = player.seat.player_id
    return lambda v: v["status"] == "playing" and (v["turn"] or {}).get("player") == me


def play_turn(player: Player) -> list[str]:
    """This seat's whole turn; the actions sent, in order.

    `draw` from the stock once the turn may start (R10.4), then `discard` the
    card. A King must be played instead (R6.3): `king`, then its extra draws
    (R9.1), each drawn and discarded the same way.
    """
    sent: list[str] = []
    view = player.wait(my_turn(player), what="giving this seat the turn")
    while my_turn(player)(view):
        if view["holding"] is None:
            early_ms = view["turn"]["may_start_at"] - player.now_ms
            if early_ms > 0:
                time.sleep(early_ms / 1000 + 0.05)
            player.send({"type": "draw", "source": "stock"})
            sent.append("draw")
            view = player.wait(lambda v: v["holding"] is not None, what="with the drawn card")
        elif "discard" in view["legal"]:
            count = view["discard_count"]
            player.send({"type": "discard"})
            sent.append("discard")
            view = player.wait(
                lambda v, before=count: v["holding"] is None and v["discard_count"] > before,
                what="with the card discarded",
            )
        else:
            assert view["legal"] == ["king"], f"holding {view['holding']}: {view['legal']}"
            player.send({"type": "king"})
            sent.append("king")
            view = player.wait(lambda v: v["holding"] is None, what="with the King played")
    return sent


def play_until_a_discard(first: Player, second: Player) -> Player:
    """Turns in seat order until one ends with a `discard`; the player whose
    turn it is then."""
    actor, waiting = first, second
    for _ in range(8):
        done = play_turn(actor)
        actor, waiting = waiting, actor
        if "discard" in done:
            return actor
    raise AssertionError("eight turns and no discard")


def start_game(host: Player, guest: Player) -> None:
    """`start` by the host, `ready` from both (R16.2): the first turn may begin."""
    host.send({"type": "start"})
    for player in (host, guest):
        player.wait(lambda v: v["status"] == "peek", what="for the peek phase")
        player.send({"type": "ready"})
    for player in (host, guest):
        player.wait(lambda v: v["status"] == "playing", what="for play")


def settled(player: Player) -> Callable[[View], bool]:
    """This seat's turn, nothing held, no crisp window open: the table waits for
    this player alone and no timer can change it (no draw limit is set)."""

    def check(v: View) -> bool:
        crisp = v.get("crisp") or {}
        return (
            my_turn(player)(v)
            and v["holding"] is None
            and crisp.get("window") is None
            and not crisp.get("windows")
        )

    return check


GAME_FIELDS = (
    "code",
    "status",
    "round",
    "dealer",
    "turn",
    "stock_count",
    "discard_top",
    "discard_count",
    "holding",
    "options",
    "host",
)


def game_state(view: View) -> dict[str, Any]:
    """The part of a view that only play changes (not presence)."""
    state = {k: view.get(k) for k in GAME_FIELDS}
    state["players"] = [(p["id"], p["name"], p["seat"], p["total"]) for p in view["players"]]
    return state
