"""The host's options (C2.1 `target`, C8.1 `muggins`, C8.2 `skunk`, C8.3
`turn_seconds`; `watchers` is the table's, R18.1) and the game's durations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import bad_option
from .vocabulary import Skunk

TARGETS = (121, 61)
TURN_SECONDS = (None, 15, 30, 60)
SHOW_MS = 2_500  # C7.2: one hand of the show, at time scale 1
AFTER_SHOW_MS = 20_000  # C7.5
CLAIM_MS = 30_000  # C8.1
MUGGINS_MS = 5_000  # C8.1

CHOICES: dict[str, tuple[Any, ...]] = {
    "target": TARGETS,
    "skunk": tuple(s.value for s in Skunk),
    "muggins": (False, True),
    "turn_seconds": TURN_SECONDS,
    "watchers": (True, False),
}


@dataclass(frozen=True, slots=True)
class Options:
    target: int = 121
    skunk: Skunk = Skunk.SKUNK
    muggins: bool = False
    turn_seconds: int | None = None
    watchers: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "skunk": self.skunk.value, "muggins": self.muggins,
                "turn_seconds": self.turn_seconds, "watchers": self.watchers}

    @staticmethod
    def parse(raw: Mapping[str, Any]) -> Options:
        """Options from the host's values (every name optional); GameError
        `bad_message` for a name or value the game does not list."""
        for name, val in raw.items():
            choices = CHOICES.get(name)
            if choices is None:
                raise bad_option(f"no option {name!r}")
            # bool is an int: True must not pass for 1, nor 1 for True
            if not any(val is c or (type(val) is type(c) and val == c) for c in choices):
                raise bad_option(f"option {name!r} cannot be {val!r}")
        d = Options()
        return Options(target=raw.get("target", d.target),
                       skunk=Skunk(raw.get("skunk", d.skunk)),
                       muggins=raw.get("muggins", d.muggins),
                       turn_seconds=raw.get("turn_seconds", d.turn_seconds),
                       watchers=raw.get("watchers", d.watchers))


def scaled(ms: int, scale: float) -> int:
    """A duration at the table's time scale (protocol: CRISP_TIME_SCALE)."""
    return max(1, round(ms * scale))
