"""Dot-product training scores in blocks (models/dot_product.py): the unfused graph's scores and gradients bit for
bit, and the link trainer's whole history the same."""

import networkx as nx
import numpy as np
import pytest
import torch

from helpers import assert_fused_history_is_unfused
from netzbench.models import dot_product
from netzbench.models.adapters import DotProductLink
from netzbench.models.dot_product import train_scores
from netzbench.models.encoders import GCN
from netzbench.training import link as L
from netzbench.training.fit import Hyper
from netzbench.training.seed import set_seed


def _unfused(z, pairs):
    return DotProductLink.score(z, pairs)


@pytest.mark.parametrize("m,block", [(37, 1024), (5000, 1024), (5000, 7), (1, 3)])
def test_blockwise_dot_scores_and_gradients_are_the_unfused_bits(m, block, monkeypatch):
    monkeypatch.setattr(dot_product, "BLOCK", block)
    gen = torch.Generator().manual_seed(m)
    n, d = 300, 16
    x = torch.randn(n, 8, generator=gen)
    pairs = torch.randint(0, n, (2, 2 * m), generator=gen)
    pairs[:, : m // 2] = pairs[:, :1]  # repeated pairs: many gradient terms land on one row
    pairs[1, m // 2: m] = pairs[0, m // 2: m]  # and pairs of a node with itself
    labels = torch.cat([torch.ones(m), torch.zeros(m)])
    out = []
    for scores in (_unfused, train_scores):
        torch.manual_seed(0)
        lin = torch.nn.Linear(8, d)
        z = torch.relu(lin(x))
        z.retain_grad()
        s = scores(z, pairs)
        torch.nn.functional.binary_cross_entropy_with_logits(s, labels).backward()
        out.append((s.detach(), z.grad, lin.weight.grad, lin.bias.grad))
    for a, b in zip(*out):
        assert torch.equal(a, b)
    assert not torch.equal(out[0][1], torch.zeros_like(out[0][1]))


def test_the_link_trainer_scores_dot_products_blockwise_with_the_same_history(monkeypatch):
    g = nx.powerlaw_cluster_graph(150, 3, 0.3, seed=5)
    arrays = {"edge_index": np.array(list(g.edges())).T, "num_nodes": np.array([150])}

    def run():
        set_seed(0)
        return L.train_link_pred(lambda i, h, o: DotProductLink(GCN(i, h, o)), arrays, 0,
                                 Hyper(8, 0.01, 0.0, 3), protocol={"link_eval_negatives": "uniform"}).history

    assert_fused_history_is_unfused(monkeypatch, L, train_scores, _unfused, run, steps=3)
