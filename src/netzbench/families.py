"""The four task families and the headline metric each one reports.

Part of result identity: the headline decides which validation series a
hyperparameter search selects on, and what every run record reports.
"""

TASK_TYPES = frozenset({"node_cls", "graph_cls", "graph_reg", "link_pred"})

#: family -> (headline series, direction: "higher" or "lower" is better)
HEADLINE = {
    "node_cls": ("test_acc", "higher"),
    "graph_cls": ("test_acc", "higher"),
    "graph_reg": ("test_mae", "lower"),
    "link_pred": ("test_auc", "higher"),
}
