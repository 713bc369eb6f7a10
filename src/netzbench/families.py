"""The four task families and the headline metric each one reports.

Part of result identity: the headline decides which validation series a
hyperparameter search selects on, and what every run record reports. A link
task's headline follows the protocol's ``link_metric`` switch (ROC-AUC, or MRR
against each positive's own negatives; a knowledge graph under
``relational_ranking: full``, the filtered MRR against every entity). A node classification task is scored
by its dataset's standard metric (the catalogue's ``Dataset.metric``, written
into ``meta.json`` by fetch only where it is not the family's default):
accuracy, or ROC-AUC for the imbalanced binary tasks whose authors score them
so (minesweeper, tolokers, questions: Platonov et al. 2023). None of the
paper's published tasks has a non-default metric (a test checks it), so
``protocol: paper`` keeps the paper's metric for the paper's tasks.
"""

TASK_TYPES = frozenset({"node_cls", "graph_cls", "graph_reg", "link_pred"})

#: family -> (headline series, direction: "higher" or "lower" is better)
HEADLINE = {
    "node_cls": ("test_acc", "higher"),
    "graph_cls": ("test_acc", "higher"),
    "graph_reg": ("test_mae", "lower"),
    "link_pred": ("test_auc", "higher"),
}


#: the metrics a task may name (``meta.json``'s ``metric``) -> the test series that measures it
METRIC_SERIES = {"accuracy": "test_acc", "roc_auc": "test_auc"}
#: the families a metric may be chosen for, and each one's default (what a task without ``metric`` gets)
METRIC_FAMILIES = {"node_cls": "accuracy"}


def headline(family: str, switches: dict | None = None, metric: str | None = None) -> tuple[str, str]:
    """The headline series and its direction of a task of ``family`` under the resolved protocol
    ``switches`` (:func:`netzbench.protocol.resolve`; none: the family's default), scored by the
    task's ``metric`` (:data:`METRIC_SERIES`; None: the family's default)."""
    if metric is not None and metric != METRIC_FAMILIES.get(family):
        if family not in METRIC_FAMILIES or metric not in METRIC_SERIES:
            raise ValueError(f"a {family} task cannot be scored by {metric!r} (metrics: "
                             f"{', '.join(sorted(METRIC_SERIES)) if family in METRIC_FAMILIES else 'the default only'})")
        return METRIC_SERIES[metric], "higher"
    switches = switches or {}
    if family == "link_pred" and switches.get("link_metric") == "mrr":
        # a knowledge graph ranked against every entity (``relational_ranking: full``): that rank is the headline
        return ("test_full_mrr" if switches.get("relational_ranking") == "full" else "test_mrr"), "higher"
    return HEADLINE[family]


#: headline series ranked at selected checkpoints only, and the validation series that selects them
#: (``relational_ranking: full``: the full ranking is computed where the sampled validation MRR is best)
SELECTED_BY = {"test_full_mrr": "val_mrr", "test_full_hits1": "val_hits1", "test_full_hits3": "val_hits3",
               "test_full_hits10": "val_hits10"}


def validation_series(metric: str) -> str | None:
    """The validation series paired with a ``test_<metric>`` headline (what selection reads); None for any
    other series. A knowledge graph's full ranking pairs with the sampled series (:data:`SELECTED_BY`)."""
    if metric in SELECTED_BY:
        return SELECTED_BY[metric]
    split, _, name = metric.partition("_")
    return f"val_{name}" if split == "test" and name else None
