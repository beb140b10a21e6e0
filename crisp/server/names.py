"""Player names (protocol.md "Names"): 1-20 characters after trimming, no control characters."""

from __future__ import annotations

import unicodedata

MAX_NAME = 20
_BAD_CATEGORIES = frozenset({"Cc", "Zl", "Zp", "Cs"})


def clean_name(raw: object) -> str | None:
    """The trimmed name, or None if it is not a valid player name."""
    if not isinstance(raw, str):
        return None
    name = raw.strip()
    if not 1 <= len(name) <= MAX_NAME:
        return None
    if any(unicodedata.category(ch) in _BAD_CATEGORIES for ch in name):
        return None
    return name
