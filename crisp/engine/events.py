"""Events: what happened, with who may see which part of it (R16.3, R16.4).

Every event is public except:
- `peek` goes only to the player who may look (`to`);
- fields listed in `secret` are shown only to the event's `player` (the card of
  a draw from the stock, R4.1) and are null for everyone else;
- fields listed in `sealed` are shown to nobody: they are left out of every live
  event and kept for the round's record, read once the round is over (R18.2: the
  deal on `round_started`, the two cards a Queen swapped).

The viewer `None` is nobody's seat: a watcher (R18.1) gets every public event,
no `peek` and no secret field.

`look` is server-side metadata, never on the wire: the `seq` of the Look (R16.3)
that this event shows to its `player` (a `peek`, or the `swapped` of a card the
player drew), so the server can note which looks reached a live connection.
"""

from __future__ import annotations

from typing import Any


class Event:
    """One thing that happened, before redaction."""

    __slots__ = ("data", "kind", "look", "sealed", "secret", "to")

    def __init__(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        to: str | None = None,
        secret: tuple[str, ...] = (),
        look: int | None = None,
        sealed: tuple[str, ...] = (),
    ) -> None:
        self.kind = kind
        self.data = data
        self.to = to
        self.secret = secret
        self.look = look
        self.sealed = sealed

    def to_json(self) -> dict[str, Any]:
        """A plain-JSON form that keeps the visibility metadata (server-internal)."""
        out: dict[str, Any] = {"kind": self.kind, "data": self.data}
        if self.to is not None:
            out["to"] = self.to
        if self.secret:
            out["secret"] = list(self.secret)
        if self.look is not None:
            out["look"] = self.look
        if self.sealed:
            out["sealed"] = list(self.sealed)
        return out

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Event:
        """The inverse of `to_json`."""
        return Event(raw["kind"], dict(raw["data"]), to=raw.get("to"),
                     secret=tuple(raw.get("secret", ())), look=raw.get("look"),
                     sealed=tuple(raw.get("sealed", ())))

    def __repr__(self) -> str:
        return (f"Event({self.kind}, {self.data}, to={self.to}, secret={self.secret}, "
                f"look={self.look}, sealed={self.sealed})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Event) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


def _plain_copy(value: Any) -> Any:
    """A copy of plain JSON data that shares no dict or list with the original."""
    if type(value) is dict:
        return {k: _plain_copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_plain_copy(v) for v in value]
    return value


def redact(event: Event, player: str | None) -> dict[str, Any] | None:
    """The event as `player` may see it, or None when it is not for them (R16.3).
    `player` None is a watcher, nobody's seat (R18.1): no look, no secret field."""
    if event.to is not None and event.to != player:
        return None
    sealed = event.sealed
    out = {"kind": event.kind, **{k: _plain_copy(v) for k, v in event.data.items()
                                  if k not in sealed}}
    if event.secret and (player is None or event.data.get("player") != player):
        for field in event.secret:
            out[field] = None
    return out


def unredacted(event: Event) -> dict[str, Any]:
    """The whole event, every card field filled in, sealed ones too: the round's
    record (R18.2), never a live frame."""
    return {"kind": event.kind, **{k: _plain_copy(v) for k, v in event.data.items()}}
