"""`hard`: the normal discard, with the crib's unknown cards weighted by what the
other seats are likely to give (good cards to their own crib, poor ones to an
opponent's); in the play, a look-ahead over the unseen cards: each card's points
now and the rest of the play laid out over deals of the unseen cards to the
other seats (`rollout`)."""

from __future__ import annotations

from ...api import Rng
from ..cards import rank, value
from ..expect import crib_draws, crib_ev, hand_ev
from ..vocabulary import BotLevel
from .common import BaseBot, View, give_choices, own_crib, unseen
from .rollout import lay_points, play_out

# By rank (A..K): how likely a seat gives a card of that rank to its own (side's)
# crib, and to an opponent's. Fives and touching low cards go to one's own crib;
# an opponent's crib gets Kings and far-apart cards.
SAMPLES = 40  # deals of the unseen cards per decision in the play
GIVE_SAMPLES = 12  # the same, per choice of the shortlist when giving
SHORTLIST = 5
TO_OWN = (1.2, 1.2, 1.3, 1.3, 2.0, 1.1, 1.1, 1.1, 1.0, 1.1, 1.0, 1.0, 1.0)
TO_OPPONENT = (1.0, 0.9, 0.8, 0.8, 0.3, 0.8, 0.9, 0.9, 1.1, 1.0, 0.8, 1.1, 1.3)


class HardBot(BaseBot):
    level = BotLevel.HARD
    weighted = True  # the crib's unknown cards weighted by the others' likely gifts
    # choices whose pegging is played out when giving (1: none). Measured on the same
    # 400 duplicate pairs against normal: 52.7% with 5, 55.0% with 1 (docs/bots.md)
    shortlist = 1
    samples = SAMPLES  # deals of the unseen cards per lay

    def choose_give(self, view: View, seat: int, rng: Rng) -> tuple[str, ...]:
        """The `SHORTLIST` best choices by show value (hand, and the crib weighted by
        the others' likely discards), then each one's play: the kept cards played
        out against `GIVE_SAMPLES` deals of the unseen cards to the others (the same
        deals for every choice), my side's pegging minus the others'."""
        hand = list(view["hand"])
        n = len(view["players"])
        rest = unseen(view)
        own = own_crib(view, seat)
        weights = self._weights(view, seat, own) if self.weighted else None
        sign = 1.0 if own else -1.0
        give_n = 2 if n == 2 else 1
        drawn = crib_draws(rest, 5 - give_n)
        scored = []
        for g in give_choices(hand, n):
            kept = [c for c in hand if c not in g]
            scored.append((hand_ev(kept, rest) + sign * crib_ev(g, rest, weights, drawn), g))
        scored.sort(key=lambda vg: -vg[0])
        short = scored[:self.shortlist]
        if len(short) == 1:
            return short[0][1]
        players = view["players"]
        dealer = next(i for i, p in enumerate(players) if p.get("id") == view["dealer"])
        side = [s % 2 if n == 4 else s for s in range(n)]
        pegging = [0.0] * len(short)
        deck = list(rest)
        for _ in range(GIVE_SAMPLES):
            rng.shuffle(deck)
            others = [[rank(c) for c in deck[4 * k:4 * k + 4]] for k in range(n)]
            for j, (_, g) in enumerate(short):
                hands = [[rank(c) for c in hand if c not in g] if s == seat else list(others[s])
                         for s in range(n)]
                pts = play_out([], 0, hands, [False] * n, dealer)
                pegging[j] += sum(p if side[s] == side[seat] else -p for s, p in enumerate(pts))
        best = max(range(len(short)), key=lambda j: short[j][0] + pegging[j] / GIVE_SAMPLES)
        return short[best][1]

    @staticmethod
    def _weights(view: View, seat: int, own: bool) -> tuple[float, ...]:
        """The others give to the dealer's crib: to their own side's (TO_OWN) or to an
        opponent's (TO_OPPONENT); mixed with 3 players (the dealer's own and the rest)."""
        players = view["players"]
        if len(players) == 3:
            return tuple((a + 2 * b) / 3 for a, b in zip(TO_OWN, TO_OPPONENT, strict=True))
        return TO_OPPONENT if own else TO_OWN

    def choose_lay(self, view: View, seat: int, rng: Rng) -> str:
        """Each playable card: its points now, then the rest of the play laid out
        over `SAMPLES` deals of the unseen cards to the other seats (the same deals
        for every card), every seat laying greedily; my side's points minus the
        others'. Ties: the higher card (low cards are kept for the go)."""
        cards: list[str] = sorted(view["playable"])
        if len(cards) == 1:
            return cards[0]
        players = view["players"]
        n = len(players)
        series = [rank(e["card"]) for e in view["play"]["series"]]
        count = int(view["play"]["count"])
        mine = [rank(c) for c in view["hand"]]
        go = [bool(p["go"]) for p in players]
        held = [int(p["held"]) for p in players]
        deck = unseen(view)
        side = [s % 2 if n == 4 else s for s in range(n)]
        totals = dict.fromkeys(cards, 0.0)
        for _ in range(self.samples):
            rng.shuffle(deck)
            hands: list[list[int]] = []
            i = 0
            for s in range(n):
                if s == seat:
                    hands.append(mine)
                else:
                    hands.append([rank(c) for c in deck[i:i + held[s]]])
                    i += held[s]
            for c in cards:
                h = [list(x) for x in hands]
                h[seat].remove(rank(c))
                seq = [*series, rank(c)]
                cnt = count + value(c)
                pts = play_out(seq, cnt, h, list(go), seat)
                pts[seat] += lay_points(seq, cnt)
                totals[c] += sum(p if side[s] == side[seat] else -p for s, p in enumerate(pts))
        return max(cards, key=lambda c: (totals[c], value(c)))
