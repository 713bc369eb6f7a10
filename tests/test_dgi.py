"""DGI trains, gives representations, and is deterministic given the seed."""

import torch
from torch_geometric.datasets import KarateClub

from netzbench.models import GCN, GraphSAGE
from netzbench.training.dgi import train_dgi


def test_dgi_trains_and_embeds():
    data = KarateClub()[0]
    res = train_dgi(GCN, data.x, data.edge_index, hidden_channels=16, epochs=60, lr=0.01, seed=0)
    assert sum(res.losses[-10:]) / 10 < sum(res.losses[:10]) / 10  # the loss falls
    z = res.embed(data.x, data.edge_index)
    assert z.shape == (34, 16) and torch.isfinite(z).all()
    # the representations carry community structure: a nearest-centroid probe on half the nodes
    y = data.y
    train = torch.arange(34) % 2 == 0
    centroids = torch.stack([z[train & (y == c)].mean(0) for c in range(4)])
    pred = torch.cdist(z[~train], centroids).argmin(1)
    assert (pred == y[~train]).float().mean() > 0.4  # chance 0.25


def test_dgi_is_deterministic_given_the_seed():
    data = KarateClub()[0]
    a = train_dgi(GraphSAGE, data.x, data.edge_index, hidden_channels=8, epochs=5, seed=3)
    b = train_dgi(GraphSAGE, data.x, data.edge_index, hidden_channels=8, epochs=5, seed=3)
    assert a.losses == b.losses
