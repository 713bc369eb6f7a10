"""What a history series is: its name, its headline role, its direction and its values.

A history is ``{series_name: [value per evaluated epoch]}``.  Series names
are ``<split>_<metric>`` (``train_loss``, ``val_acc``, ``test_acc``,
``val_auc``, ``test_auc``, ``val_mae``, ``test_mae``, ...); values may be
``None`` or NaN.

The headline series and its direction per task come from the run records
(:class:`TaskInfo`).  For hand-built histories they are inferred: the
headline is a ``test_*`` series (``test_acc``, ``test_auc``, ``test_mae``,
``test_rmse`` preferred in that order, then alphabetical) and
``mae``/``rmse``/``mse``/``loss`` are lower-is-better.  A ``test_<metric>``
headline is paired with the validation series ``val_<metric>``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .. import families

DIRECTIONS = ("higher", "lower")
LOWER_IS_BETTER = ("mae", "rmse", "mse", "loss")
PREFERRED_METRICS = ("acc", "auc", "mae", "rmse")
#: metrics in [0, 1]: accuracy, ROC-AUC, AP, F1, MRR and hits@k (any ``hits*`` name)
UNIT_INTERVAL = ("acc", "accuracy", "auc", "ap", "f1", "mrr")
#: error metrics: non-negative, no upper bound
NON_NEGATIVE = ("mae", "rmse", "mse")
METRIC_LABELS = {"acc": "accuracy", "auc": "ROC-AUC", "mae": "MAE", "rmse": "RMSE", "f1": "macro-F1", "ap": "AP"}


@dataclass
class TaskInfo:
    """Headline series, its direction, and the task's family / research category."""

    metric: str
    direction: str
    family: str | None = None
    category: str | None = None


def task_metrics(task_info: Mapping[str, TaskInfo]) -> dict[str, str]:
    """``{task: headline series}`` of a report's ``task_info``."""
    return {t: info.metric for t, info in task_info.items()}


def infer_metric(histories: Sequence[Mapping | None]) -> str | None:
    """The headline series of hand-built histories.

    A ``test_*`` series, preferring ``test_acc``, ``test_auc``, ``test_mae``,
    ``test_rmse`` in that order, then the alphabetically first ``test_*``; if no
    run has a ``test_*`` series, the first non-``train_`` series; ``None`` if no
    run has any series.
    """
    names: set[str] = set()
    for h in histories:
        if h:
            names.update(h)
    if not names:
        return None
    tests = sorted(n for n in names if n.startswith("test_"))
    for suffix in PREFERRED_METRICS:
        if f"test_{suffix}" in tests:
            return f"test_{suffix}"
    if tests:
        return tests[0]
    others = sorted(n for n in names if not n.startswith("train_"))
    return (others or sorted(names))[0]


def infer_direction(metric: str) -> str:
    """``"lower"`` when the metric's last ``_`` token is mae/rmse/mse/loss, else ``"higher"``."""
    return "lower" if metric.split("_")[-1] in LOWER_IS_BETTER else "higher"


def metric_range(metric: str) -> tuple[float, float]:
    """The range of a series' values from its metric name (the last ``_`` token): ``(0, 1)`` for
    accuracy, AUC, AP, F1, MRR and hits@k; ``(0, inf)`` for MAE/RMSE/MSE; ``(-inf, inf)`` otherwise."""
    name = metric.split("_")[-1].lower()
    if name in UNIT_INTERVAL or name.startswith("hits"):
        return 0.0, 1.0
    if name in NON_NEGATIVE:
        return 0.0, math.inf
    return -math.inf, math.inf


def metric_label(metric: str) -> str:
    """Readable name of a series: ``test_auc`` -> ``test ROC-AUC``."""
    split, _, name = metric.partition("_")
    return f"{split} {METRIC_LABELS.get(name, name)}" if name else metric


def task_info_of(task: str, given: Mapping | None, histories: Sequence[Mapping | None]) -> TaskInfo:
    """The :class:`TaskInfo` of ``task``: ``given`` metadata (``{"metric", "direction", "family",
    "category"}``), the headline and its direction inferred from the task's histories where missing."""
    given = dict(given or {})
    metric = given.get("metric") or infer_metric(histories) or "test_metric"
    direction = given.get("direction") or infer_direction(metric)
    if direction not in DIRECTIONS:
        raise ValueError(f"{task}: direction must be 'higher' or 'lower', got {direction!r}")
    return TaskInfo(metric, direction, given.get("family"), given.get("category"))


def validation_series(metric: str) -> str | None:
    """The validation series paired with a ``test_<metric>`` headline; None for any other series
    (:func:`netzbench.families.validation_series`: a knowledge graph's full ranking pairs with the
    sampled validation MRR, at whose best checkpoint it was computed)."""
    return families.validation_series(metric)


def curve_series(metric: str) -> str:
    """The series a learning curve of the headline ``metric`` draws: the headline itself, or for one
    ranked at selected checkpoints only (a knowledge graph's full ranking, NaN at the other epochs) its
    every-epoch sampled counterpart (``test_full_mrr`` -> ``test_mrr``)."""
    if metric in families.SELECTED_BY:
        return "test_" + families.SELECTED_BY[metric].partition("_")[2]
    return metric


def as_float(v) -> float:
    """A history value as a float (``None`` is NaN)."""
    return math.nan if v is None else float(v)


def as_array(values) -> np.ndarray:
    """A history series as a float array (``None`` entries are NaN)."""
    return np.asarray([as_float(v) for v in values], dtype=float)
