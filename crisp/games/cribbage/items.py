"""A scoring item (C9.3): what a score was for, the cards that made it, the
points. Immutable; `to_json` is the protocol's item."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .vocabulary import ItemKind


@dataclass(frozen=True, slots=True)
class Item:
    kind: ItemKind
    cards: tuple[str, ...]
    points: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "cards": list(self.cards), "points": self.points}

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> Item:
        return Item(ItemKind(raw["kind"]), tuple(raw["cards"]), int(raw["points"]))


def total(items: Sequence[Item]) -> int:
    return sum(i.points for i in items)


def items_json(items: Sequence[Item]) -> list[dict[str, Any]]:
    return [i.to_json() for i in items]
