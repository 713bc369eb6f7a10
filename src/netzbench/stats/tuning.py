r"""Expected best validation score against the tuning budget (Dodge et al. 2019, "Show your work").

A hyperparameter search gives each model the same trials (``search``: the same grid, or the same
random draw for every model) and records every trial's validation score. If a researcher with a budget
of :math:`n` trials drew them at random from those trials, the best score they would find is the
maximum of :math:`n` draws; with the :math:`N` observed scores sorted,
:math:`v_{(1)} \le \dots \le v_{(N)}`, and draws with replacement,

.. math::

    \mathbb E[\max_n] = \sum_{i=1}^{N} v_{(i)} \Big[\Big(\tfrac{i}{N}\Big)^n - \Big(\tfrac{i-1}{N}\Big)^n\Big],
    \qquad
    \operatorname{Var}[\max_n] = \sum_i v_{(i)}^2 w_i - \mathbb E[\max_n]^2

with the same weights :math:`w_i` (the probability that :math:`v_{(i)}` is the maximum). For a
lower-is-better metric the best is the minimum (the same on negated scores). The curve rises with
:math:`n` to the best trial; two models whose curves cross rank differently depending on how much
tuning each got -- a comparison that holds only at one budget.

Edge cases: non-finite scores are dropped; no finite score gives NaN curves; a budget must be an
integer :math:`\ge 1`. Ties are harmless (equal values, any order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._common import ResultMixin

__all__ = ["BudgetCurve", "crossings", "expected_max_curve"]


@dataclass(frozen=True)
class BudgetCurve(ResultMixin):
    """Expected best score (``mean``) and its spread (``sd``, of one tuning run's best) per ``budgets``."""

    budgets: tuple[int, ...]
    mean: tuple[float, ...]
    sd: tuple[float, ...]
    n_trials: int
    direction: str


def expected_max_curve(scores, budgets: Sequence[int], direction: str = "higher") -> BudgetCurve:
    """The curve of the module docstring for trial ``scores`` at each of ``budgets``."""
    if direction not in ("higher", "lower"):
        raise ValueError(f"direction must be 'higher' or 'lower', got {direction!r}")
    budgets = tuple(int(n) for n in budgets)
    if any(n < 1 for n in budgets):
        raise ValueError(f"budgets must be integers >= 1, got {list(budgets)}")
    v = np.asarray(scores, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0:
        nan = (float("nan"),) * len(budgets)
        return BudgetCurve(budgets, nan, nan, 0, direction)
    sign = 1.0 if direction == "higher" else -1.0
    v = np.sort(sign * v)
    N = v.size
    i = np.arange(1, N + 1)
    means, sds = [], []
    for n in budgets:
        w = (i / N) ** n - ((i - 1) / N) ** n
        m = float(np.dot(w, v))
        var = max(0.0, float(np.dot(w, v * v)) - m * m)
        means.append(sign * m)
        sds.append(var ** 0.5)
    return BudgetCurve(budgets, tuple(means), tuple(sds), N, direction)


def crossings(a: BudgetCurve, b: BudgetCurve) -> list[int]:
    """The budgets at which the better of ``a`` and ``b`` changes (the first budget of each new order):
    empty when one is at least as good at every budget."""
    if a.budgets != b.budgets or a.direction != b.direction:
        raise ValueError("the curves must share budgets and direction")
    sign = 1.0 if a.direction == "higher" else -1.0
    diff = sign * (np.asarray(a.mean) - np.asarray(b.mean))
    out, last = [], 0.0
    for n, d in zip(a.budgets, diff):
        if not np.isfinite(d) or d == 0:
            continue
        s = float(np.sign(d))
        if last and s != last:
            out.append(n)
        last = s
    return out
