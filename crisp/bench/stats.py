"""What the clients of a `crisp bench` run count: actions sent and answered (and
their latencies), by type; the room changes and updates seen; refusals;
connections."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Stats:
    measuring: bool = False
    stopping: bool = False
    latencies: dict[str, list[float]] = field(default_factory=dict)  # answered, by type
    sent: int = 0
    sent_by_type: Counter[str] = field(default_factory=Counter)
    answered: int = 0
    unanswered: int = 0
    updates: int = 0  # every update any seat received
    changes: int = 0  # room changes (the updates one seat per room received)
    rounds: int = 0
    games: int = 0
    refused_sent: int = 0  # messages sent to be refused (--refused), not actions
    refusals_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    errors_by_action: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    opened: int = 0
    failed: int = 0
    fail_reasons: Counter[str] = field(default_factory=Counter)
    handshakes: list[float] = field(default_factory=list)
