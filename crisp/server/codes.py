"""Room codes and seat tokens.

Room codes: 4 characters (5, then 6, after repeated collisions) from an alphabet
without look-alikes (no 0/O, 1/I/L); case-insensitive on input.
Tokens: 192 random bits (`secrets.token_urlsafe(24)`); only their SHA-256 is
stored, compared in constant time. Tokens are never logged.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
MIN_LEN = 4
MAX_LEN = 6
_ALPHABET_SET = frozenset(ALPHABET)


def new_code(length: int = MIN_LEN) -> str:
    """A random room code of `length` characters."""
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def normalize_code(raw: str) -> str | None:
    """The canonical (upper-case) form of a room code typed by a user, or None if invalid."""
    code = raw.strip().upper()
    if not MIN_LEN <= len(code) <= MAX_LEN or not set(code) <= _ALPHABET_SET:
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
