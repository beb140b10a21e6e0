"""Player names (protocol.md "Names": 1-20 characters after trimming, no control
characters), made hard to impersonate (docs/protocol-additions.md, "Names").

`clean_name` gives the stored form: Unicode NFKC (full-width and other
compatibility forms become their plain letters), runs of whitespace as one
space, trimmed. It refuses control characters, invisible characters (format
characters such as zero-width spaces and joiners, bidi controls like U+202E,
fillers that draw nothing), private-use and unassigned code points, a name
that starts with a combining mark or has more than `MAX_MARKS` marks in a row
(the "towers" of stacked diacritics), and a name with nothing visible.

`name_key` is what two names must not share in one room: the NFKC case fold
(`Ana`, `ANA` and a full-width `ANA` are the same name).
"""

from __future__ import annotations

import unicodedata

MAX_NAME = 20
MAX_MARKS = 3  # combining marks in a row: Arabic shadda + vowel fits, a tower does not
ZWJ = "\u200d"
# Categories never allowed: controls, line/paragraph separators, lone surrogates,
# format characters (invisible: ZWSP, ZWNJ, bidi controls, BOM, ...), private use,
# unassigned.
_BAD_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
# Letters and symbols that draw nothing (Hangul fillers, braille blank) and the
# combining grapheme joiner.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
_MARKS = frozenset({"Mn", "Mc", "Me"})
_MODIFIERS = _MARKS | {"Sk"}
_BREAKS = frozenset({"Cc", "Zl", "Zp"})  # whitespace that is not a space: refused, not folded


def clean_name(raw: object) -> str | None:
    """The stored form of a player name, or None if it is not a valid one."""
    if not isinstance(raw, str) or len(raw) > 4 * MAX_NAME:
        return None
    normal = unicodedata.normalize("NFKC", raw)
    if any(unicodedata.category(ch) in _BREAKS for ch in normal):  # tab, newline, ...
        return None
    name = " ".join(normal.split())
    if not 1 <= len(name) <= MAX_NAME:
        return None
    marks = 0
    visible = False
    for i, ch in enumerate(name):
        category = unicodedata.category(ch)
        if category in _MARKS:
            marks += 1
            if i == 0 or marks > MAX_MARKS or name[i - 1] == " ":
                return None
            continue
        marks = 0
        if ch in _INVISIBLE:
            return None
        if category in _BAD_CATEGORIES and not _joins_emoji(name, i):
            return None
        if category[0] in "LNPS":
            visible = True
    return name if visible else None


def name_key(name: str) -> str:
    """The form two names of one room must not share: NFKC of the case fold."""
    return unicodedata.normalize("NFKC", name.casefold())


def _joins_emoji(name: str, i: int) -> bool:
    """A zero-width joiner inside an emoji sequence (👩‍💻): between two symbols."""
    if name[i] != ZWJ or i == 0 or i == len(name) - 1:
        return False
    before = name[i - 1]
    if unicodedata.category(before) in _MODIFIERS and i >= 2:  # 👩🏽‍💻: skin tone, or VS16
        before = name[i - 2]
    return unicodedata.category(before) == "So" and unicodedata.category(name[i + 1]) == "So"
