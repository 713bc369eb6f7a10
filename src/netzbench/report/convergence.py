"""Was training long enough? A cell whose validation curve still rises at its last epoch is *not converged*.

Per seed, the validation series of the headline (``val_<metric>``, oriented so that higher is better) is
split into its last :data:`TAIL` of evaluated epochs (at least :data:`MIN_TAIL` evaluations) and
everything before. The seed is *still rising* when the best value of that tail beats the best value
before it by more than :func:`tolerance` (0.1 % of the earlier best, at least
:data:`~netzbench.stats.RESOLUTION`): the last stretch of training still found a better model, so more
epochs would likely find a better one still. A seed with fewer than :data:`MIN_EVALUATIONS` evaluations
cannot tell. A cell is not converged when more than half of the seeds that can tell are still rising.

A cell read at its best-validation epoch is affected too: its epoch may be the last one simply because
the budget ended there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..stats import RESOLUTION
from .series import validation_series

#: the share of the evaluated epochs that make up the tail of a curve
TAIL = 0.1
#: the fewest evaluations in the tail
MIN_TAIL = 3
#: the fewest evaluations a curve needs before it can be judged
MIN_EVALUATIONS = 10
#: the relative gain of the tail over the best before it that counts as still rising
RELATIVE = 1e-3


def tolerance(best_before: float) -> float:
    """The gain over ``best_before`` below which the tail counts as flat."""
    return max(RESOLUTION, RELATIVE * abs(best_before))


def still_rising(values: Sequence, direction: str = "higher") -> bool | None:
    """Whether a validation curve ``values`` (one value per evaluated epoch; None/NaN skipped) still
    improves in its tail (module docstring); None when it is too short to tell."""
    sign = 1.0 if direction == "higher" else -1.0
    v = [sign * float(x) for x in values if x is not None and math.isfinite(float(x))]
    if len(v) < MIN_EVALUATIONS:
        return None
    k = max(MIN_TAIL, math.ceil(TAIL * len(v)))
    before, tail = max(v[:-k]), max(v[-k:])
    return tail - before > tolerance(before)


def cell_convergence(runs: Sequence[Mapping | None], metric: str, direction: str) -> dict:
    """``{converged, n_rising, n_seeds, series}`` of one cell's per-seed histories: ``converged`` is False
    when more than half of the seeds that can tell are still rising, True when not, None when no seed can
    tell (too short, or no validation series)."""
    series = validation_series(metric)
    verdicts = [still_rising(h[series], direction) for h in runs if h and series and h.get(series)]
    judged = [r for r in verdicts if r is not None]
    n_rising = sum(judged)
    converged = None if not judged else not (n_rising * 2 > len(judged))
    return {"converged": converged, "n_rising": n_rising, "n_seeds": len(judged), "series": series}


def not_converged(histories: Mapping, task_info: Mapping) -> list[dict]:
    """Cells whose validation curve still rises at the last epoch in more than half of their seeds:
    ``{task, model, n_rising, n_seeds, series, reason}``, in the order of ``histories``."""
    out = []
    for task, by_model in histories.items():
        info = task_info[task]
        for model, runs in by_model.items():
            c = cell_convergence(runs, info.metric, info.direction)
            if c["converged"] is False:
                out.append({"task": task, "model": model, "n_rising": c["n_rising"], "n_seeds": c["n_seeds"],
                            "series": c["series"], "reason": describe(c)})
    return out


def describe(c: Mapping) -> str:
    """One line for a not-converged cell (:func:`cell_convergence`'s dict)."""
    return (f"not converged: {c['series']} still rising over the last {TAIL:.0%} of the epochs in {c['n_rising']} "
            f"of {c['n_seeds']} seeds (more epochs would likely score higher)")
