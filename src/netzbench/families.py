"""The four task families and the headline metric each one reports.

Part of result identity: the headline decides which validation series a
hyperparameter search selects on, and what every run record reports. A link
task's headline follows the protocol's ``link_metric`` switch (ROC-AUC, or MRR
against each positive's own negatives).
"""

TASK_TYPES = frozenset({"node_cls", "graph_cls", "graph_reg", "link_pred"})

#: family -> (headline series, direction: "higher" or "lower" is better)
HEADLINE = {
    "node_cls": ("test_acc", "higher"),
    "graph_cls": ("test_acc", "higher"),
    "graph_reg": ("test_mae", "lower"),
    "link_pred": ("test_auc", "higher"),
}


def headline(family: str, switches: dict | None = None) -> tuple[str, str]:
    """The headline series and its direction of a task of ``family`` under the resolved protocol
    ``switches`` (:func:`netzbench.protocol.resolve`; none: the family's default)."""
    if family == "link_pred" and (switches or {}).get("link_metric") == "mrr":
        return "test_mrr", "higher"
    return HEADLINE[family]
