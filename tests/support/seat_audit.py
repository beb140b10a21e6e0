"""The seat audit (R16.3, R16.4): every frame one seat received, over all its
connections, holds no card identity but those it may see (tests/server/
test_server_leak.py explains which); moved here from the leak test so that the test
file holds the games and the audits live with the watcher's (audit.py)."""

from __future__ import annotations

import re
from typing import Any

from .player import Player

CARD = re.compile(r"^[A2-9TJQK][SHDC]$")
SLOTS = ("left", "middle", "right")
PUBLIC_EVENT_CARDS = {
    ("swapped", "discarded"),
    ("discarded", "card"),
    ("jack", "card"),
    ("queen", "card"),
    ("king", "card"),
}


class Seat:
    """All frames one seat received, over all its connections."""

    def __init__(self, pid: str, token: str) -> None:
        self.pid = pid
        self.token = token
        self.connections: list[list[dict[str, Any]]] = []
        self.player: Player | None = None
        self.away = 0  # times it stayed away long enough for the computer to play it

    def archive(self) -> None:
        if self.player is not None:
            self.connections.append(self.player.frames)


def cards_in(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Every (path, card) in a JSON value whose string is a card."""
    out: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += cards_in(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += cards_in(v, f"{path}[{i}]")
    elif isinstance(value, str) and CARD.match(value):
        out.append((path, value))
    return out


def audit_seat(seat: Seat, tokens: set[str]) -> int:
    """Check every frame of one seat; returns how many frames were checked."""
    me = seat.pid
    checked = 0
    known: dict[tuple[str, str], str] = {}  # what this seat legitimately knows
    held: str | None = None  # the card this seat last drew (from its own events)
    kings: set[str] = set()  # Kings played this round, public (R9.3, R16.4)
    round_no: int | None = None  # the round `known` is about
    for frames in seat.connections:
        seq = 0
        shown_before = (round_no, dict(known))  # what the last connection was shown
        known.clear()  # events missed while away make old knowledge unreliable
        held = None
        kings.clear()
        for frame in frames:
            checked += 1
            text = repr(frame)
            for token in tokens:
                assert token not in text, f"{me}: a token was sent"
            if frame["type"] == "error":
                assert cards_in(frame) == [], f"{me}: card in error {frame}"
                continue
            assert frame["type"] == "update"
            seq += 1
            assert frame["seq"] == seq
            events = frame["events"]
            if seq == 1:  # only the looks this seat is owed (R16.3 revised), each once
                round_no = frame["view"]["round"]
                for ev in events:
                    assert ev["kind"] == "peek" and ev["player"] == me, f"{me}: first {ev}"
                    if shown_before[0] == round_no:
                        assert shown_before[1].get((me, ev["slot"])) != ev["card"], (
                            f"{me}: a look shown again after a reconnect: {ev}")
                    known[(me, ev["slot"])] = ev["card"]  # checked at the reveal
                events = []
            kinds = [e["kind"] for e in events]
            for i, ev in enumerate(events):
                kind = ev["kind"]
                for path, card in cards_in(ev):
                    field = path.split(".")[1].split("[")[0]
                    if (kind, field) in PUBLIC_EVENT_CARDS:
                        continue
                    if kind == "round_over" and field == "hands":
                        continue
                    if kind == "drew" and field == "card":
                        assert ev["source"] == "discard" or ev["player"] == me, (
                            f"{me} saw another player's stock draw {ev}")
                        continue
                    if kind == "peek" and field == "card":
                        assert ev["player"] == me, f"{me} got {ev}"
                        prior = kinds[:i]
                        slot = ev["slot"]
                        # any of the three reasons, each by this seat's own events: one
                        # update may hold several players' moves (computer seats)
                        dealt = "round_started" in prior and slot in ("left", "right")
                        jack = slot == "middle" and any(
                            e["kind"] == "jack" and e["player"] == me for e in events[:i])
                        queen = slot != "middle" and any(
                            e["kind"] == "queen" and me in (e["player"], e["target"])
                            and slot == (e["slot"] if e["player"] == me else e["target_slot"])
                            for e in events[:i])
                        ok = dealt or jack or queen
                        assert ok, f"{me}: peek not justified: {events}"
                        continue
                    raise AssertionError(f"{me}: card {card} at {kind}{path}: {ev}")
                # knowledge tracking, to check peeks tell the truth
                if kind == "round_started":
                    known.clear()
                    held = None
                    kings.clear()
                    round_no = ev["round"]
                elif kind == "king":
                    kings.add(ev["card"])
                elif kind == "peek":
                    known[(me, ev["slot"])] = ev["card"]
                elif kind == "drew" and ev["player"] == me:
                    held = ev["card"]
                elif kind == "swapped":
                    key = (ev["player"], ev["slot"])
                    if ev["player"] == me and held is not None:
                        known[key] = held
                    else:
                        known.pop(key, None)
                elif kind == "queen":
                    a, b = (ev["player"], ev["slot"]), (ev["target"], ev["target_slot"])
                    ca, cb = known.pop(a, None), known.pop(b, None)
                    if ca is not None:
                        known[b] = ca
                    if cb is not None:
                        known[a] = cb
                elif kind == "round_over":
                    for (pid, slot), card in known.items():
                        assert ev["hands"][pid][SLOTS.index(slot)] == card, (
                            f"{me}: believed {pid} {slot} = {card}, reveal says {ev['hands']}")
                    known.clear()
            view = frame["view"]
            assert view["you"] == me
            revealed = view["status"] in ("round_over", "game_over")
            for path, card in cards_in(view):
                if path == ".discard_top" or path.startswith(".last_round.hands"):
                    continue
                if path.startswith(".turn.kings["):  # R9.3: played Kings lie face up
                    assert card[0] == "K", f"{me}: {card} beside the piles"
                    if seq == 1:  # after a reconnect the king event came on an older socket
                        kings.add(card)
                    assert card in kings, f"{me}: {card} beside the piles, never played"
                    continue
                if path.startswith(".players[") and ".cards[" in path:
                    assert revealed, f"{me}: card {card} in {path} during play"
                    continue
                if path == ".holding":
                    turn = view["turn"]
                    assert turn is not None and turn["player"] == me, f"{me}: holding off turn"
                    if seq > 1:  # after a reconnect the drew event came on an older socket
                        assert card == held, f"{me}: holding {card} but drew {held}"
                    held = card
                    continue
                raise AssertionError(f"{me}: card {card} at view{path}")
    return checked
