"""The `hard` level: plays the odds over tables consistent with what it saw (R17.1).

It remembers what `normal` remembers (its looks, every public card, the order
of a stock rebuilt from the pile, R4.2) and reads more into the others' public
choices (`Memory.caps`: a card kept in place of a known one is lower than the
card thrown away, a drawn card thrown away says the kept ones are not much
higher). With that:

- **calling crisp** (R10): it deals the cards it has not seen at random, many
  times over (`crisp.bots.worlds`), consistently with everything it saw, plays
  the others' final turns in each of those tables (R11.1: they draw from the
  stock it knows or could be, keep what is lower, and turn a Queen on the
  caller, R8.5), and calls when it ends strictly lowest (R12.2) in enough of
  them (62% head to head, 50% at a bigger table, where the others call late);
  it settles for less as the round drags on;
- **its final turn** (R11): every move (discard, each swap, the Queen on each
  opponent's lowest card) is scored over the sampled tables by its own round
  score against the others', the caller's -5/+5 included (R12.2, R12.3): so it
  plays against the caller when that pays;
- **other turns**: expected values with a price on its own unknown cards
  (knowing them is what lets it call); head to head it keeps every drawn number
  card in its best slot rather than throw it away (measured: a card kept tells
  the opponent less, and it reads kept cards as low), at a bigger table when
  that loses at most 1; the Jack on an unknown middle (R7), and
  the Queen (R8) scored by what it gains and what the opponent loses, a high
  card hidden in an opponent's middle counting more (they will not see it,
  R8.3); the pile's top (R13) when it beats what the stock can be expected to
  give (its known top after a rebuild, R4.2, or the unseen cards).

Every random choice comes from one generator seeded from the seat's random
source (`rng`) per decision: the same seed and the same view and memory give
the same move; different seats, or games, play differently.
"""

from __future__ import annotations

import random
from typing import Any

from crisp.engine import ActionType, Source

from . import moves
from .knowledge import Knowledge, value
from .memory import Memory
from .moves import Message
from .worlds import JACK, KING, QUEEN, VALUES, Worlds, rank_of

SAMPLES = 48  # tables dealt for a crisp call at a table of two
SAMPLES_PER_SEAT = 3  # ... fewer for each further seat (each table costs more)
MIN_SAMPLES = 32
FINAL_SAMPLES = 40  # tables dealt for a final turn
LAMBDA = 0.8  # the price of one of its own cards it does not know (mid-round)
RHO_SIDE = 0.25  # what a point added to an opponent's hand is worth to it, card seen
RHO_MID = 0.6  # ... card hidden in their middle (R8.3)
QUEEN_MIN = 0.5  # a Queen swap must be worth this much more than discarding
PILE_EDGE = 0.5  # the pile's top must beat the stock's expectation by this much (R13)
CALL_CHANCE_TWO = 0.62  # head to head, call when it ends lowest in this share of the tables
CALL_CHANCE = 0.5  # ... at a table of three or more (the others call late: be first)
PATIENCE = 4  # after this many of its turns, the threshold falls by STEP per turn
STEP = 0.03
LOWEST_CHANCE = 0.35
LAST_CALL = 24  # after this many of its turns it calls at the next window
UNAWARE = 6.5  # what a player takes a card they never saw to be
ATTACK_FROM = 6  # a player turns a Queen on the caller with a card at least this high
BLUFF_TWO = 10.0  # head to head a drawn number card is always kept (a swap losing less)
BLUFF = 1.0  # ... at a bigger table only when it loses at most this much
TIE = 1e-9


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return items[0] if len(items) == 1 else rng.choice(items)


# -- the others' final turns, in a sampled table ------------------------------------------


def _final_turn(hands: list[list[int]], aware: list[int], who: int, caller: int,
                stock: list[int], pos: int) -> int:
    """One player's final turn (R11.1) in a sampled table (card values; the stock as
    ranks): draws from `stock` at `pos`, keeps a number card lower than the card it
    believes highest, turns a Queen on the caller (R8.5) when its highest is high,
    takes a King's two draws (R9). Returns the new position in the stock."""
    draws = 1
    hand = hands[who]
    bits = aware[who]
    while draws > 0 and pos < len(stock):
        r = stock[pos]
        pos += 1
        draws -= 1
        if r == KING:
            draws += 2
            continue
        if r == JACK:
            continue
        b0 = hand[0] if bits & 1 else UNAWARE
        b1 = hand[1] if bits & 2 else UNAWARE
        b2 = hand[2] if bits & 4 else UNAWARE
        worst, high = (0, b0) if b0 >= b1 and b0 >= b2 else (1, b1) if b1 >= b2 else (2, b2)
        if r == QUEEN:
            if caller != who and high >= ATTACK_FROM:
                theirs = hands[caller]
                low = theirs.index(min(theirs))
                hand[worst], theirs[low] = theirs[low], hand[worst]
            continue
        if VALUES[r] < high - 0.5:
            hand[worst] = VALUES[r]
            bits |= 1 << worst
    return pos


def lowest_share(view: dict[str, Any], memory: Memory, rng: random.Random,
                 samples: int | None = None) -> float:
    """In how many sampled tables my total ends strictly lowest (R12.2) if I call now."""
    n = len(view.get("players", []))
    worlds = Worlds(view, memory, depth=n + 3)
    me = worlds.me
    order = [(me + i) % n for i in range(1, n)]
    count = samples or max(MIN_SAMPLES, SAMPLES - SAMPLES_PER_SEAT * (n - 2))
    wins = 0
    for _ in range(count):
        hands, stock = worlds.sample(rng)
        pos = 0
        for who in order:
            pos = _final_turn(hands, worlds.aware, who, me, stock, pos)
        mine = sum(hands[me])
        wins += all(sum(hands[o]) > mine for o in order)
    return wins / count


def should_call(view: dict[str, Any], memory: Memory, rng: random.Random) -> bool:
    """R10: call when I end lowest in enough of the tables I could be at."""
    if memory.my_turns >= LAST_CALL:
        return True
    threshold = CALL_CHANCE_TWO if len(view.get("players", [])) == 2 else CALL_CHANCE
    threshold -= STEP * max(0, memory.my_turns - PATIENCE)
    return lowest_share(view, memory, rng) >= max(LOWEST_CHANCE, threshold)


# -- expected values (mid-round) ----------------------------------------------------------


class _Hand:
    """My hand's expected values and what I know of it."""

    def __init__(self, k: Knowledge) -> None:
        self.k = k
        self.values = [k.slot_value(k.me, s) for s in range(3)]
        self.unknown = [k.hands[k.me][s] is None for s in range(3)]

    def swap_gain(self, card: float, price: float) -> list[float]:
        """What putting a known card of value `card` at each slot gains (R5.1)."""
        return [self.values[s] - card + (price if self.unknown[s] else 0.0) for s in range(3)]

    def best_swap(self, card: float, price: float) -> tuple[float, int]:
        gains = self.swap_gain(card, price)
        top = max(gains)
        return top, gains.index(top)


def _queen_options(k: Knowledge, hand: _Hand, price: float, harm: bool,
                   rng: random.Random) -> list[tuple[float, int, str, int]]:
    """Every Queen swap (R8) as (gain, my slot, target, target slot), best first."""
    out = []
    for p in k.others:
        weight = 1.0 / len(k.others)
        for t in range(3):
            theirs = k.slot_value(p, t)
            known_theirs = k.hands[p][t] is not None
            for s in range(3):
                mine = hand.values[s]
                seen_after = s != 1 or known_theirs  # R8.2: a middle is not looked at
                gain = mine - theirs
                gain += price * ((1.0 if hand.unknown[s] else 0.0)
                                 - (0.0 if seen_after else 1.0))
                if harm:
                    rho = RHO_MID if t == 1 else RHO_SIDE  # R8.3
                    gain += rho * weight * len(k.others) ** 0.5 * (mine - theirs)
                out.append((gain, s, p, t))
    rng.shuffle(out)  # ties at random
    out.sort(key=lambda o: -o[0])
    return out


def _stock_gain(k: Knowledge, memory: Memory, view: dict[str, Any], hand: _Hand,
                price: float, rng: random.Random) -> float:
    """What a draw from the stock is expected to gain: its known top (R4.2), else the
    unseen cards' ranks (a J, Q or K a third each of the unseen faces)."""
    current = view.get("round") == memory.round
    known = memory.stock[0] if current and memory.stock else None
    queen = max(0.0, _queen_options(k, hand, price, True, rng)[0][0]) if k.others else 0.0
    jack = price if hand.unknown[1] else 0.0
    numbers = sum(k.numbers[v] for v in range(1, 11))
    per_number = {v: _number_gain(hand, v, price) for v in range(1, 11)}
    number = sum(k.numbers[v] * per_number[v] for v in range(1, 11)) / numbers \
        if numbers else 0.0
    king = 2.0 * number  # R9.1: two more draws
    if known is not None:
        rank = rank_of(known)
        return jack if rank == JACK else queen if rank == QUEEN else king if rank == KING \
            else per_number[VALUES[rank]]
    if k.unseen <= 0:
        return 0.0
    faces = (k.unseen - numbers) / 3.0
    return (numbers * number + faces * (jack + queen + king)) / k.unseen


def _bluff(k: Knowledge) -> float:
    """How much a swap may lose and still be made rather than a discard (R5)."""
    return BLUFF_TWO if len(k.others) == 1 else BLUFF


def _number_gain(hand: _Hand, card: int, price: float) -> float:
    """What a number card from the stock gains: its best swap, or nothing if discarded."""
    top = hand.best_swap(card, price)[0]
    return 0.0 if top <= -_bluff(hand.k) else top


def choose_draw(view: dict[str, Any], memory: Memory, k: Knowledge, final: bool,
                rng: random.Random) -> Message:
    """R13: the pile's top when it beats what the stock is expected to give."""
    top = view.get("discard_top")
    if top is None or not moves.may_draw_from_pile(view):
        return moves.draw(Source.STOCK)
    hand = _Hand(k)
    price = 0.0 if final else LAMBDA
    pile = hand.best_swap(value(top), price)[0]
    stock = _stock_gain(k, memory, view, hand, price, rng)
    return moves.draw(Source.DISCARD if pile > stock + PILE_EDGE else Source.STOCK)


def resolve(view: dict[str, Any], k: Knowledge, rng: random.Random) -> Message | None:
    """R5 mid-round: the move with the best expected gain."""
    legal = view["legal"]
    held = view.get("holding")
    hand = _Hand(k)
    if ActionType.KING in legal:
        return moves.msg(ActionType.KING)  # R6.3
    if ActionType.JACK in legal:
        return moves.msg(ActionType.JACK if hand.unknown[1] else ActionType.DISCARD)  # R7
    if ActionType.QUEEN in legal:
        options = _queen_options(k, hand, LAMBDA, True, rng)
        if options and options[0][0] >= QUEEN_MIN:
            _, s, p, t = options[0]
            return moves.queen(s, p, t)
        return moves.msg(ActionType.DISCARD)
    if held is None or ActionType.SWAP not in legal:
        return moves.msg(ActionType.DISCARD) if ActionType.DISCARD in legal else None
    gains = hand.swap_gain(value(held), LAMBDA)
    top = max(gains)
    if top <= -_bluff(k) and ActionType.DISCARD in legal:
        return moves.msg(ActionType.DISCARD)
    return moves.swap(int(_pick(rng, [s for s in range(3) if gains[s] >= top - TIE])))


# -- the final turn, over sampled tables ---------------------------------------------------


def final_resolve(view: dict[str, Any], memory: Memory, k: Knowledge,
                  rng: random.Random) -> Message | None:
    """R11: my last move of the round, scored over sampled tables: my round score against
    the others', the caller's -5/+5 (R12.2, R12.3) included."""
    legal = view["legal"]
    held = view.get("holding")
    if ActionType.KING in legal:
        return moves.msg(ActionType.KING)
    if held is None:
        return moves.msg(ActionType.DISCARD) if ActionType.DISCARD in legal else None
    worlds = Worlds(view, memory, depth=0)
    me, caller = worlds.me, worlds.caller
    n = len(worlds.ids)
    options: list[tuple[str, int, int, int]] = []  # (type, my slot, target seat, their slot)
    if ActionType.DISCARD in legal or ActionType.JACK in legal:
        options.append((ActionType.DISCARD, -1, -1, -1))
    if ActionType.SWAP in legal:
        options += [(ActionType.SWAP, s, -1, -1) for s in range(3)]
    if ActionType.QUEEN in legal:
        hand = _Hand(k)
        seen: set[tuple[int, int]] = set()
        for _, s, p, t in _queen_options(k, hand, 0.0, False, rng):
            seat = worlds.ids.index(p)
            if (seat, t) in seen and p != k.caller:
                continue
            seen.add((seat, t))
            options.append((ActionType.QUEEN, s, seat, t))
            if len(options) > 24:
                break
    if not options:
        return moves.msg(ActionType.DISCARD) if ActionType.DISCARD in legal else None
    held_value = VALUES[rank_of(held)]
    scores = [0.0] * len(options)
    for _ in range(FINAL_SAMPLES):
        hands, _stock = worlds.sample(rng)
        totals = [sum(h) for h in hands]
        mine = hands[me]
        for i, (kind, s, seat, t) in enumerate(options):
            after = list(totals)
            if kind == ActionType.SWAP:
                after[me] += held_value - mine[s]
            elif kind == ActionType.QUEEN:
                delta = hands[seat][t] - mine[s]
                after[me] += delta
                after[seat] -= delta
            scores[i] += _round_score(after, me, caller, n)
    best = min(scores)
    kind, s, seat, t = _pick(rng, [o for o, sc in zip(options, scores, strict=True)
                                   if sc <= best + TIE])
    if kind == ActionType.SWAP:
        return moves.swap(s)
    if kind == ActionType.QUEEN:
        return moves.queen(s, worlds.ids[seat], t)
    return moves.msg(ActionType.DISCARD)


def _round_score(totals: list[int], me: int, caller: int | None, n: int) -> float:
    """My round score less the others' mean (R12.1-R12.3)."""
    if caller is None:
        return totals[me] - (sum(totals) - totals[me]) / (n - 1)
    lowest = all(totals[caller] < totals[i] for i in range(n) if i != caller)
    scores = list(totals)
    scores[caller] += -5 if lowest else 5
    return scores[me] - (sum(scores) - scores[me]) / (n - 1)


def play(view: dict[str, Any], memory: Memory, now: int, rng: random.Random) -> Message | None:
    """The `hard` policy for a view in play."""
    legal = view["legal"]
    local = random.Random(rng.getrandbits(64))
    if ActionType.CRISP in legal and should_call(view, memory, local):
        return moves.msg(ActionType.CRISP)
    k = Knowledge.of(view, memory)
    final = k.caller is not None and k.caller != k.me
    if ActionType.DRAW in legal:
        return choose_draw(view, memory, k, final, local)
    if final:
        return final_resolve(view, memory, k, local)
    return resolve(view, k, local)
