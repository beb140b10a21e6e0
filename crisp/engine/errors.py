"""The typed error for well-formed but forbidden actions."""

from __future__ import annotations


class IllegalAction(Exception):
    """An action the rules or the table's state refuse.

    `code` is an error code from protocol.md (`not_your_turn`, `too_early`,
    `wrong_phase`, `illegal`, `not_host`, `unknown_player`, `room_full`,
    `game_started`, `bad_message`); `rule` is the rule id that forbids it.
    """

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule
        self.message = message if rule is None else f"{message} ({rule})"

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
