"""Cribbage's computer players (C10.1, C10.2): they read only the seat's view."""

from __future__ import annotations

from ..vocabulary import BotLevel
from .common import BaseBot
from .easy import EasyBot
from .hard import HardBot
from .normal import NormalBot

BOTS: dict[str, BaseBot] = {BotLevel.EASY: EasyBot(), BotLevel.NORMAL: NormalBot(),
                           BotLevel.HARD: HardBot()}

__all__ = ["BOTS", "BaseBot", "EasyBot", "HardBot", "NormalBot"]
