"""One trainer per task family (:mod:`.node`, :mod:`.graph_level`, :mod:`.link`, :mod:`.relational`),
sharing the loop of :mod:`.fit`.

Every family records, at each evaluated epoch, ``train_loss``, a validation
series and a held-out test series (``<split>_<metric>``), so checkpoint
selection and search never score on held-out data, plus ``test_constant``
(1 when every test prediction is the same: a collapsed model). Each seed's
result also carries what a constant predictor scores on its test set
(``baseline``). Evaluation runs under ``torch.inference_mode`` and metrics
stay in torch.

| family    | loss                               | headline  | extra series |
|-----------|------------------------------------|-----------|--------------|
| node_cls  | cross-entropy on train mask        | test_acc  | *_f1 (macro) |
| graph_cls | cross-entropy (BCE multilabel)     | test_acc  | *_f1 (macro) |
| graph_reg | L1 or MSE (``regression_loss``)    | test_mae  | *_rmse       |
| link_pred | BCE on positive + negatives        | test_auc or test_mrr (``link_metric``) | *_ap, *_mrr, *_hits{1,3,10} |
"""

from __future__ import annotations

from typing import Callable

from ..protocol import Protocol
from .fit import FitResult, Hyper
from .graph_level import train_graph_level
from .link import train_link_pred
from .node import train_node_cls
from .relational import train_relational


def train(family: str, split: str, build, arrays: dict, seed: int, hp: Hyper, device="cpu",
          on_epoch: Callable[[int], None] | None = None, protocol: Protocol | dict | None = None) -> FitResult:
    """Dispatch to the family's trainer (on ``device``; ``on_epoch(epoch)`` after every epoch) under
    the resolved ``protocol`` switches (:mod:`netzbench.protocol`; none: the strict protocol)."""
    if family == "node_cls":
        return train_node_cls(build, arrays, seed, hp, split, device, on_epoch)
    if family in ("graph_cls", "graph_reg"):
        return train_graph_level(build, arrays, seed, hp, family, split, device, on_epoch, protocol)
    if family == "link_pred" and split == "relational_canonical":
        return train_relational(build, arrays, seed, hp, device, on_epoch, protocol)
    if family == "link_pred":
        return train_link_pred(build, arrays, seed, hp, device, on_epoch, protocol)
    raise ValueError(f"unknown task family {family!r}")
