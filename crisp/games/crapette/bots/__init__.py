"""Crapette's computer players (easy, normal, hard): each sees only its seat's view
and the events as its seat receives them."""

from __future__ import annotations

from ...api import Bot
from ..vocabulary import BotLevel


def bot(level: BotLevel) -> Bot:
    """The computer player of `level`."""
    raise NotImplementedError(level)
