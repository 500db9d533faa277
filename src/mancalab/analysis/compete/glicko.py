"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system"), one rating period per game.

A rating is (rating, deviation, volatility): a new player is 1500, 350, 0.06; the system
constant tau is 0.5. ``update`` is the paper's steps 2-8, with the Illinois root-finding of
its step 5; its worked example is a test. A rating is provisional (shown with "?") while its
deviation is above ``PROVISIONAL``, as on lichess.
"""

from __future__ import annotations

import math
from typing import NamedTuple

SCALE = 173.7178  # the paper's factor between the Glicko and the Glicko-2 scale
TAU = 0.5
EPSILON = 0.000001  # the paper's convergence tolerance
PROVISIONAL = 110.0  # deviation above which a rating is shown as provisional
MAX_DEVIATION = 350.0  # a new player's; a deviation never grows beyond it


class Rating(NamedTuple):
    rating: float = 1500.0
    deviation: float = MAX_DEVIATION
    volatility: float = 0.06

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi ** 2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """The paper's step 5: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def update(player: Rating, games: list[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period of ``games`` (the opponent's rating before
    the period, and the score: 1 a win, 0.5 a draw, 0 a loss)."""
    mu = (player.rating - 1500) / SCALE
    phi = player.deviation / SCALE
    if not games:  # the deviation grows with the time without games
        phi_star = math.sqrt(phi * phi + player.volatility ** 2)
        return Rating(player.rating, min(MAX_DEVIATION, phi_star * SCALE), player.volatility)
    terms = []
    for opponent, score in games:
        mu_j, phi_j = (opponent.rating - 1500) / SCALE, opponent.deviation / SCALE
        terms.append((_g(phi_j), _expected(mu, mu_j, phi_j), score))
    v = 1 / sum(g * g * e * (1 - e) for g, e, _ in terms)
    improvement = sum(g * (s - e) for g, e, s in terms)
    sigma = _volatility(phi, player.volatility, v * improvement, v, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return Rating(SCALE * mu_new + 1500, min(MAX_DEVIATION, SCALE * phi_new), sigma)


def after_game(first: Rating, second: Rating, score: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game between them (``score`` is the first player's:
    1, 0.5 or 0), the game its own rating period for each."""
    return update(first, [(second, score)]), update(second, [(first, 1 - score)])
