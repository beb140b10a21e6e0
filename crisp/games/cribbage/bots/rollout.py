"""A fast play-out of the rest of the play (C5) on ranks, for the hard player's
look-ahead: every seat lays the card that scores most now (ties: the higher
count value, keeping low cards for later). Returns each seat's points."""

from __future__ import annotations

from collections.abc import Sequence

_VALUE = tuple(min(r + 1, 10) for r in range(13))


def lay_points(seq: Sequence[int], count: int) -> int:
    """The points of the last rank of `seq` (the ranks since the reset), `count`
    the count with it (C5.4)."""
    pts = 2 if count in (15, 31) else 0
    last = seq[-1]
    same = 1
    n = len(seq)
    while same < n and seq[-1 - same] == last:
        same += 1
    pts += (0, 0, 2, 6, 12)[same]
    for k in range(n, 2, -1):
        tail = sorted(seq[-k:])
        if tail[-1] - tail[0] == k - 1 and len(set(tail)) == k:
            pts += k
            break
    return pts


def play_out(seq: list[int], count: int, hands: list[list[int]], go: list[bool],
             last: int) -> list[int]:
    """The rest of the play after `last` laid the last rank of `seq` (already
    scored): the points each seat scores from here (the go and the last card
    included). `hands`, `go` are changed in place (pass copies)."""
    n = len(hands)
    pts = [0] * n
    while True:
        turn = -1
        if count < 31:
            for k in range(1, n + 1):
                q = (last + k) % n
                hand = hands[q]
                fits = bool(hand) and min(_VALUE[r] for r in hand) <= 31 - count
                if q == last:
                    if fits:
                        turn = q
                    break
                if not hands[q] or go[q]:
                    continue
                if fits:
                    turn = q
                    break
                go[q] = True
        if turn < 0:  # the series is over (C5.3)
            if count != 31:
                pts[last] += 1
            seq, count = [], 0
            go = [False] * n
            turn = next(((last + k) % n for k in range(1, n + 1) if hands[(last + k) % n]), -1)
            if turn < 0:
                return pts
        best, best_key = -1, (-1, -1)
        for r in hands[turn]:
            c = count + _VALUE[r]
            if c <= 31:
                key = (lay_points([*seq, r], c), _VALUE[r])
                if key > best_key:
                    best, best_key = r, key
        hands[turn].remove(best)
        seq = [*seq, best]
        count += _VALUE[best]
        pts[turn] += best_key[0]
        last = turn
