"""Room codes and seat tokens.

Room codes: `CODE_LEN` (8) characters from `ALPHABET`, an alphabet without
look-alikes (no 0/O, 1/I/L; protocol.md), shown in groups of four
(`K7QX-M3RT`). 31^8 = 8.5e11 codes: the length comes from the enumeration
arithmetic in docs/deploy.md ("Room codes"). Rooms made by older servers keep
their 4-6 character codes, which are still accepted.

On input a code is case-insensitive, and spaces, dashes and the like are
ignored (`normalize_code`), so `k7qx m3rt`, `K7QX-M3RT` and `/r/k7qx-m3rt` all
name the same room; the canonical form (store keys, the wire, logs) is upper
case without separators.

Tokens: 192 random bits (`secrets.token_urlsafe(24)`); only their SHA-256 is
stored, compared in constant time. Tokens are never logged.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LEN = 8
GROUP = 4  # characters per group when a code is shown
LEGACY_LENGTHS = frozenset({4, 5, 6})  # codes of rooms made before CODE_LEN was 8
VALID_LENGTHS = LEGACY_LENGTHS | {CODE_LEN}
MAX_INPUT = 64  # longer input is not looked at
_ALPHABET_SET = frozenset(ALPHABET)
# What people type between groups: spaces, dashes of every kind, dots, underscores.
_SEPARATORS = frozenset(" -._\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u00a0\u3000")


def new_code() -> str:
    """A random room code of `CODE_LEN` characters (CSPRNG)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))


def display_code(code: str) -> str:
    """A code as shown to people: groups of four joined by a dash (`K7QX-M3RT`)."""
    if len(code) <= GROUP + 2:
        return code
    return "-".join(code[i:i + GROUP] for i in range(0, len(code), GROUP))


def normalize_code(raw: str) -> str | None:
    """The canonical form of a room code typed by a person, or None if no room can
    have it: NFKC (full-width letters), any decimal digit as its ASCII digit,
    separators and whitespace dropped, upper case; then 4-6 or 8 characters of
    `ALPHABET`."""
    if len(raw) > MAX_INPUT:
        return None
    out = []
    for ch in unicodedata.normalize("NFKC", raw):
        if ch in _SEPARATORS or ch.isspace():
            continue
        if not ch.isascii() and ch.isdecimal():
            ch = str(unicodedata.decimal(ch))
        out.append(ch.upper())
    code = "".join(out)
    if len(code) not in VALID_LENGTHS or not set(code) <= _ALPHABET_SET:
        return None
    return code


def new_token() -> str:
    """A fresh seat token (at least 128 bits from a CSPRNG)."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """The stored form of a token: SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def player_of_token(token_hashes: dict[str, str], token: str) -> str | None:
    """The player id whose stored hash matches `token` (constant-time compare), else None."""
    digest = hash_token(token)
    found: str | None = None
    for pid, stored in token_hashes.items():
        if hmac.compare_digest(stored, digest):
            found = pid
    return found
