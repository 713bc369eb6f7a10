"""``train.param_budget``: the hidden width that brings a model to a parameter budget.

With a budget, every model gets the largest hidden width whose parameter
count -- of the model as built for the task: input dimension, classes or
targets, family adapter, relations -- does not exceed the budget, so models
are compared at (nearly) equal capacity instead of equal width (as
Benchmarking-GNNs, Dwivedi et al. 2020, did at 100k and 500k parameters).
The count grows with the width for every roster model, so the width is found
by doubling then bisection; the widths tried are built on the ``meta``
device (no memory, no random numbers drawn), so the search costs
milliseconds and leaves the seeded initialisation of the model actually
trained exactly as it would be without a budget.

Models without parameters (the link-prediction heuristics, class attribute
``heuristic = True``) ignore the budget.
"""

from __future__ import annotations

from typing import Callable

import torch


class BudgetError(ValueError):
    """No width brings the model within ``train.param_budget``."""


def is_heuristic(spec) -> bool:
    """True for a model with no trainable parameters by declaration (``heuristic = True``)."""
    return bool(getattr(spec.cls, "heuristic", False) or getattr(spec.factory, "heuristic", False))


def count_parameters(model: torch.nn.Module) -> int:
    """The number of parameters (as the run record's ``num_params`` counts them)."""
    params = list(model.parameters())
    if any(isinstance(p, torch.nn.parameter.UninitializedParameter) for p in params):
        raise BudgetError("the model has lazy parameters (e.g. Linear(-1, ...)): their count is unknown before "
                          "the first forward pass, so train.param_budget cannot size it; give explicit sizes")
    return sum(p.numel() for p in params)


def parameter_count(make: Callable[[int], torch.nn.Module], width: int) -> int:
    """Parameters of ``make(width)``, built on the meta device (falling back to the CPU, with the global
    random state restored, for a model that cannot be built there)."""
    try:
        with torch.device("meta"):
            return count_parameters(make(width))
    except BudgetError:
        raise
    except Exception:  # noqa: BLE001 - e.g. a user model computing on tensors in __init__
        with torch.random.fork_rng(devices=[]):
            return count_parameters(make(width))


def width_for_budget(make: Callable[[int], torch.nn.Module], budget: int, name: str = "model") -> tuple[int, int]:
    """``(width, count)``: the largest width whose parameter count is <= ``budget``, and that count.

    The count is assumed non-decreasing in the width (true of every roster model): widths double
    until one exceeds the budget, then the gap is bisected, so ``width + 1`` always exceeds it.
    """
    count = parameter_count(make, 1)
    if count > budget:
        raise BudgetError(f"train.param_budget = {budget}: {name} has {count} parameters already at hidden width 1 "
                          "(input and output layers alone exceed the budget); raise the budget")
    lo, lo_count, hi = 1, count, 2
    while True:
        count = parameter_count(make, hi)
        if count > budget:
            break
        lo, lo_count = hi, count
        # every layer sized by the width adds at least one parameter per unit of width
        if hi > budget:
            raise BudgetError(f"train.param_budget = {budget}: the parameter count of {name} does not grow with "
                              f"its hidden width ({count} parameters at width {hi}), so the budget cannot size it")
        hi *= 2
    while hi - lo > 1:  # invariant: count(lo) <= budget < count(hi)
        mid = (lo + hi) // 2
        count = parameter_count(make, mid)
        if count <= budget:
            lo, lo_count = mid, count
        else:
            hi = mid
    return lo, lo_count
