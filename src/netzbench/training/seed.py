"""Training one seed: seeding every RNG, building the model, running the family's loop.

Everything random is seeded from the run seed: python, numpy, torch (model
initialisation, dropout) and, through :mod:`netzbench.training.splits`, every
split and negative sample.
"""

from __future__ import annotations

import random
import resource
import time
import traceback

from ..protocol import Protocol


def set_seed(seed: int) -> None:
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def peak_rss_mb() -> float:
    """This process's own peak resident memory (MB): ``VmHWM``, not ``ru_maxrss``, which Linux carries
    over fork and exec (a worker forked from a large parent would report the parent's size)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux, bytes on macOS


def fit_seed(spec, family: str, split: str, arrays: dict, seed: int, hp: dict, device="cpu",
             on_epoch=None, protocol=None) -> dict:
    """Train one seed of model ``spec`` on ``arrays`` under the resolved ``protocol`` switches
    (:mod:`netzbench.protocol`; none: the strict protocol); the result dict of a finished seed
    (raises on error)."""
    from ..models.registry import build_model
    from .budget import is_heuristic, parameter_count, width_for_budget
    from .loops import Hyper, train

    t0 = time.perf_counter()
    if split == "auto":  # a generated custom task without a declared split: chosen from the data
        from ..graphs.convert import default_split

        split = default_split(family, arrays)
    set_seed(seed)
    num_relations = None
    if split == "relational_canonical":
        num_relations = int(arrays["num_relations"].reshape(-1)[0])

    protocol = Protocol.of(protocol)  # a job's switches (the task's part); the others at their defaults
    relation_init = protocol.relation_init

    budget = hp.get("param_budget")
    heuristic = is_heuristic(spec)
    widths: list[int | None] = []  # the hidden width of the model the trainer built

    def build(i, h, o):
        # link trainers ask for embeddings as wide as the hidden layer: under a budget both follow the width
        tied = family == "link_pred"

        def make(w):
            return build_model(spec, family, i, w, w if tied else o, num_relations=num_relations,
                               relation_init=relation_init)

        if budget is not None and not heuristic and parameter_count(make, h) > 0:  # no parameters: no budget
            h, _ = width_for_budget(make, int(budget), getattr(spec, "name", "the model"))
        widths.append(None if heuristic else h)
        return make(h)

    # a model whose input is a learnt embedding per entity on a relational task (models/kge.py)
    build.entity_inputs = bool(getattr(getattr(spec, "cls", None), "entity_inputs", False))
    build.entity_init_std = getattr(getattr(spec, "cls", None), "entity_init_std", None)

    fit = train(family, split, build, arrays, seed, Hyper(**hp), device=device, on_epoch=on_epoch,
                protocol=protocol)
    return {
        "status": "ok",
        "history": fit.history,
        "epochs": fit.epochs,
        "seconds": time.perf_counter() - t0,
        "num_params": fit.num_params,
        "hidden_channels": widths[-1] if widths else None,
        "peak_rss_mb": peak_rss_mb(),
        "baseline": fit.baseline,
        "split": fit.split,
        "leakage": list(fit.leakage),
        **({} if fit.sampling is None else {"sampling": fit.sampling}),
    }


def failure(exc: BaseException, t0: float) -> dict:
    """The result of a seed that raised ``exc`` (started at ``perf_counter()`` time ``t0``); a
    diverged run keeps its history up to the divergence, for inspection."""
    from .fit import Diverged

    out = {
        "status": "failed",
        "error": str(exc) if isinstance(exc, Diverged) else f"{type(exc).__name__}: {exc}",
        "traceback": traceback.format_exc(limit=20),
        "seconds": time.perf_counter() - t0,
    }
    if isinstance(exc, Diverged) and exc.epochs:
        out.update(history=exc.history, epochs=exc.epochs)
    return out
