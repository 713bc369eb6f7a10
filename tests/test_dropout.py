"""The blockwise CPU dropout (models/dropout.py) is F.dropout bit for bit: values, gradients and the generator's
state after it; GAT's attention dropout goes through it with PyG's coefficients; the fallbacks are F.dropout."""

import pytest
import torch
import torch.nn.functional as F
from torch_geometric.nn import GATConv

from netzbench.models import dropout as D
from netzbench.models.fused import FusedGATConv


def _both(x: torch.Tensor, p: float, seed: int = 7):
    out = []
    for fn in (F.dropout, D.dropout):
        torch.manual_seed(seed)
        xi = x.detach().clone().requires_grad_(True)
        y = fn(xi, p, True)
        state = torch.get_rng_state()
        y.backward(torch.linspace(-1.0, 3.0, y.numel(), dtype=y.dtype).view_as(y))
        out.append((y.detach(), xi.grad, state, torch.rand(3)))  # the next draw too
    return out


@pytest.mark.parametrize("shape", [(1,), (37, 5), (3 * D.BLOCK + 11,), (D.BLOCK, 2), (4, 3, 2)])
@pytest.mark.parametrize("p", [0.6, 0.5, 0.1, 0.9, 1e-3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_blockwise_dropout_is_torch_dropout_bit_for_bit(shape, p, dtype):
    x = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(len(shape)))
    (y0, g0, s0, r0), (y1, g1, s1, r1) = _both(x, p)
    assert D.available(dtype)  # this torch build: the fast path ran (the comparison below is not a fallback's)
    assert torch.equal(y0, y1) and torch.equal(g0, g1) and torch.equal(s0, s1) and torch.equal(r0, r1)
    if p >= 0.1 and y1.numel() >= 50:
        assert 0 < int((y1 == 0).sum()) < y1.numel()  # it dropped some, kept some


def test_dropout_draws_differ_with_the_seed():
    x = torch.ones(1000)
    torch.manual_seed(0)
    a = D.dropout(x, 0.5)
    torch.manual_seed(1)
    assert not torch.equal(a, D.dropout(x, 0.5))
    assert set(a.unique().tolist()) == {0.0, 2.0}


@pytest.mark.parametrize("case", ["eval", "p0", "p1", "noncontiguous", "half", "empty"])
def test_fallbacks_are_torch_dropout(case):
    x = torch.randn(40, 30)
    p, training = 0.5, True
    if case == "eval":
        training = False
    elif case == "p0":
        p = 0.0
    elif case == "p1":
        p = 1.0
    elif case == "noncontiguous":
        x = x.t()
    elif case == "half":
        x = x.to(torch.bfloat16)
    else:
        x = x[:0]
    torch.manual_seed(3)
    want = F.dropout(x, p, training)
    torch.manual_seed(3)
    got = D.dropout(x, p, training)
    assert torch.equal(want, got)
    if case in ("eval", "p0"):
        assert got is x  # no copy, no draw


def test_a_build_where_the_noise_differs_keeps_torch_dropout(monkeypatch):
    monkeypatch.setattr(D, "_checked", {})
    monkeypatch.setattr(D, "_noise", lambda like, q: torch.ones_like(like))  # not bernoulli's draws
    assert not D.available(torch.float32)
    x = torch.randn(100)
    torch.manual_seed(0)
    want = F.dropout(x, 0.6, True)
    torch.manual_seed(0)
    assert torch.equal(D.dropout(x, 0.6, True), want)


def test_gat_attention_dropout_is_pygs():
    """FusedGATConv's edge_update: PyG's coefficients, then the same attention dropout draws (training mode)."""
    gen = torch.Generator().manual_seed(0)
    n = 50
    ei = torch.randint(0, n, (2, 400), generator=gen)
    x = torch.randn(n, 6, generator=gen)
    out = []
    for cls in (GATConv, FusedGATConv):
        torch.manual_seed(0)
        conv = cls(6, 4, heads=3, dropout=0.6)
        conv.train()
        torch.manual_seed(11)
        y, (_, alpha) = conv(x, ei, return_attention_weights=True)
        y.sum().backward()
        out.append((y.detach(), alpha.detach(), conv.lin.weight.grad, conv.dropout, torch.get_rng_state()))
    for a, b in zip(*out):
        assert torch.equal(a, b) if isinstance(a, torch.Tensor) else a == b
    assert out[1][3] == 0.6  # the rate is restored after each call
