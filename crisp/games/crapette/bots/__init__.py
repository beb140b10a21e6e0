"""Crapette's computer players (easy, normal, hard): each sees only its seat's view
and the events as its seat receives them (K7.2, K8)."""

from __future__ import annotations

from ...api import Bot
from ..vocabulary import BotLevel
from .player import CrapetteBot


def bot(level: BotLevel) -> Bot:
    """The computer player of `level`."""
    return CrapetteBot(BotLevel(level))
