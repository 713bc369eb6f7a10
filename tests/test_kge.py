"""DistMult as a model of its own (models/kge.py): a learnt vector per entity, no message passing.

On a small, dense knowledge graph whose entities all have about the same degree (the Nations-like
fixture of :mod:`kg_fixture`), a GNN fed structural features cannot tell entities apart and ranks
held-out triples at chance; DistMult, under the same (paper) protocol and the default
hyperparameters, learns them.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import kg_fixture
from netzbench.models.kge import DistMult
from netzbench.models.registry import build_model, resolve_model
from netzbench.protocol import Protocol

#: the defaults of params.yaml for link prediction, and a custom task's 100 epochs (one evaluation at the end)
DEFAULTS = {"hidden_channels": 64, "lr": 0.01, "weight_decay": 0.0, "epochs": 100, "eval_every": 100}


def test_the_fixture_is_learnable_and_not_by_degree():
    parts, truth = kg_fixture.nations_like()
    assert {s: len(t) for s, t in parts.items()} == {"train": 2037, "valid": 255, "test": 255}
    assert 0.74 < kg_fixture.oracle_auc() < 0.8  # what knowing the blocs reaches against one corruption
    train = parts["train"]
    degree = np.bincount(np.r_[train[:, 0], train[:, 2]], minlength=kg_fixture.NUM_ENTITIES)
    assert degree.min() > 0.5 * degree.max()  # similar degrees: the structural features say little


def test_distmult_passes_its_entity_vectors_through_and_asks_for_them():
    spec = resolve_model("DistMult")
    assert spec.task_types == frozenset({"link_pred"}) and spec.baseline is None
    assert DistMult.entity_inputs and DistMult.entity_init_std == 0.1
    model = build_model(spec, "link_pred", 8, 8, 8, num_relations=3)
    x = torch.randn(5, 8)
    assert torch.equal(model.encoder(x, None), x)  # the same width: no layer at all
    assert sum(p.numel() for p in model.parameters()) == 3 * 8  # only the relation vectors
    projected = build_model(spec, "link_pred", 4, 8, 8)  # features of another width: one linear map, no bias
    assert projected.encoder(torch.randn(5, 4), None).shape == (5, 8)
    assert sum(p.numel() for p in projected.parameters()) == 4 * 8


def _fit(model: str, seed: int, **hp):
    from netzbench.training.seed import fit_seed

    protocol = Protocol.resolve("paper").for_task("link_pred", relational=True)  # relational_inputs: features
    return fit_seed(resolve_model(model), "link_pred", "relational_canonical", kg_fixture.arrays(), seed,
                    {**DEFAULTS, **hp}, protocol=protocol)


def test_distmult_learns_a_nations_like_graph_with_the_defaults_where_gcn_stays_at_chance():
    dm = _fit("DistMult", 0)
    # its own entity embeddings although the paper protocol gives GCNs structural features
    assert dm["num_params"] == (kg_fixture.NUM_ENTITIES + kg_fixture.NUM_RELATIONS) * 64
    assert dm["history"]["test_auc"][-1] > 0.6 and dm["history"]["val_auc"][-1] > 0.58
    assert dm["history"]["train_loss"][-1] < 0.4
    gcn = _fit("GCN", 0, epochs=30, eval_every=30)
    assert gcn["history"]["test_auc"][-1] < 0.53  # equal-degree entities look the same to it
    assert gcn["history"]["train_loss"][-1] > 0.69


@pytest.mark.parametrize("inputs", ["embedding"])
def test_distmult_ignores_the_inputs_switch_and_is_deterministic(inputs):
    protocol = {**Protocol.resolve("paper").for_task("link_pred", relational=True), "relational_inputs": inputs}
    from netzbench.training.seed import fit_seed

    hp = {**DEFAULTS, "epochs": 5, "eval_every": 5}
    a = fit_seed(resolve_model("DistMult"), "link_pred", "relational_canonical", kg_fixture.arrays(), 3, hp,
                 protocol=protocol)
    b = _fit("DistMult", 3, epochs=5, eval_every=5)
    assert a["history"] == b["history"]
