"""Each statistic computed once per report stage: :func:`computed_once`.

The report stage collects its facts (:mod:`.facts`) and then renders REPORT.md, the figures, LaTeX
and JSON from the same :class:`~netzbench.report.BenchmarkReport`; several of them ask it for the
same statistic (the Friedman test, the post-hoc tests, the summary, the rank stability). Inside
``with computed_once(report):`` each statistic method of :data:`STATISTICS` is computed once per
(arguments, report options) and every later call gets a copy of that result, so the facts, the
figures and the text cannot disagree and nothing is computed twice. Outside the block every call
computes afresh, so changing histories or options between calls is always safe.
"""

from __future__ import annotations

import copy
import functools
from contextlib import contextmanager

#: the report methods whose results are shared inside :func:`computed_once`
STATISTICS = ("final_metrics", "selected_epochs", "compared_metrics", "summary", "pairwise", "power",
              "wilcoxon_floor", "equivalence", "rank_table", "mean_ranks", "friedman", "score_table", "posthoc",
              "bayesian", "rank_stability", "baseline_comparison", "learning_curves", "missing", "collapsed",
              "compute_cost")


def _freeze(value):
    """A hashable stand-in for an argument (plain values and containers of them); TypeError otherwise."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(_freeze(v) for v in value))
    raise TypeError(type(value).__name__)


def _shared(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        memo = self.__dict__.get("_memo")
        if memo is None:
            return method(self, *args, **kwargs)
        try:
            key = (method.__name__, _freeze(args), _freeze(kwargs), _freeze(self.options()))
        except TypeError:  # an argument without a stable identity (an array): computed as asked
            return method(self, *args, **kwargs)
        if key not in memo:
            memo[key] = method(self, *args, **kwargs)
        return copy.deepcopy(memo[key])  # a caller may change its copy; the shared result stays as computed

    wrapper.__wrapped_statistic__ = True
    return wrapper


def share_statistics(cls):
    """Wrap ``cls``'s :data:`STATISTICS` methods (a class decorator); their results are shared only inside
    :func:`computed_once`."""
    for name in STATISTICS:
        setattr(cls, name, _shared(getattr(cls, name)))
    return cls


@contextmanager
def computed_once(report):
    """Within the block, each statistic of ``report`` is computed once (see the module docstring)."""
    outer = report.__dict__.get("_memo")
    report.__dict__["_memo"] = {} if outer is None else outer
    try:
        yield report
    finally:
        report.__dict__["_memo"] = outer
