"""The computer seats' records in a room document (computer_seats.py for Crisp's
rooms, table_computer.py for every other game's): a memory and the next move."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Plan:
    """When a computer seat acts on `need` (what it had to act on when planned);
    `at` None: it decided to let this one pass (e.g. no crisp call)."""

    need: str
    at: int | None

    def to_json(self) -> dict[str, Any]:
        return {"need": self.need, "at": self.at}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Plan:
        return Plan(str(raw["need"]), None if raw["at"] is None else int(raw["at"]))


@dataclass(frozen=True)
class ComputerSeat:
    """A seat the computer plays: its memory (`Memory.to_json()`) and its next move."""

    memory: dict[str, Any]
    plan: Plan | None = None

    def to_json(self) -> dict[str, Any]:
        return {"memory": self.memory, "plan": None if self.plan is None else self.plan.to_json()}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> ComputerSeat:
        plan = raw.get("plan")
        return ComputerSeat(dict(raw["memory"]), None if plan is None else Plan.from_json(plan))


Computer = dict[str, ComputerSeat]
