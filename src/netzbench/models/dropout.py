r"""Dropout on the CPU, the same bits as :func:`torch.nn.functional.dropout` at twice the speed.

In training mode, ATen's CPU dropout is ``noise = empty_like(x).bernoulli_(1 - p);
noise.div_(1 - p); x * noise``, and ``bernoulli_(q)`` keeps element :math:`i` when
:math:`u_i < q`, with :math:`u_i` the next float64 uniform of the default generator (one 64-bit
draw per element, in memory order). Its element-by-element loop branches on each comparison, so
at the protocol's dropout of 0.6 (GAT) about half the branches are mispredicted: 11 ns per
element, most of a GAT epoch's dropout on a large graph (Internet AS: 23k x 512 hidden features).

:func:`dropout` draws the same uniforms with ``uniform_`` into a float64 block that stays in
cache, compares them with :math:`q` as vectors, and builds the same noise tensor
:math:`\{0, 1/q\}` (the scale from the same division ``div_`` makes), then returns ``x * noise``:
the same product, so the backward pass (``grad * noise``) is the same too, and the generator ends
in the same state. Where that equivalence is not known (another device, dtype or torch build,
a non-contiguous input) it calls :func:`torch.nn.functional.dropout`; the first call in a process
checks the equivalence on a sample under a forked generator and keeps to torch's dropout if it
does not hold. ``tests/test_dropout.py`` compares values, gradients and generator states.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

#: uniforms drawn per block: 256 KB of float64, in cache with its mask and the noise it fills
BLOCK = 1 << 15
_FAST_DTYPES = (torch.float32, torch.float64)
_checked: dict[torch.dtype, bool] = {}


def _noise(like: Tensor, q: float) -> Tensor:
    """``empty_like(like).bernoulli_(q).div_(q)`` of a contiguous CPU tensor, blockwise."""
    noise = torch.empty_like(like, memory_format=torch.contiguous_format)
    flat = noise.view(-1)
    n = flat.numel()
    u = torch.empty(min(BLOCK, n), dtype=torch.float64)
    keep = torch.empty(u.shape, dtype=torch.bool)
    for s in range(0, n, BLOCK):
        k = min(BLOCK, n - s)
        torch.lt(u[:k].uniform_(), q, out=keep[:k])  # bernoulli_(q): u < q, u the next float64 uniform
        flat[s:s + k].copy_(keep[:k])
    # noise.div_(q) leaves 0 or 1 / q: the same division, once, on a 0-d tensor
    return noise.mul_(torch.ones((), dtype=like.dtype).div_(q))


def available(dtype: torch.dtype) -> bool:
    """Whether, in this torch build, the blockwise noise gives F.dropout's bits (checked once per dtype)."""
    if dtype not in _checked:
        x = torch.linspace(-2.0, 2.0, 7 * (BLOCK // 2 + 3), dtype=dtype).view(-1, 7)  # 3.5 blocks
        ok = True
        for p in (0.6, 0.1):
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(20261203)
                want = F.dropout(x, p, True)
                want_state = torch.get_rng_state()
                torch.manual_seed(20261203)
                got = x * _noise(x, 1.0 - p)
                ok = ok and torch.equal(want, got) and torch.equal(want_state, torch.get_rng_state())
        _checked[dtype] = ok
    return _checked[dtype]


def dropout(x: Tensor, p: float, training: bool = True) -> Tensor:
    r""":func:`torch.nn.functional.dropout` (not in place): each element zeroed with probability ``p``,
    survivors scaled by :math:`1 / (1 - p)`; the same values, gradients and generator state."""
    if (not training or not 0.0 < p < 1.0 or x.device.type != "cpu" or x.dtype not in _FAST_DTYPES
            or x.layout != torch.strided or not x.is_contiguous() or x.numel() == 0 or not available(x.dtype)):
        return F.dropout(x, p, training)
    return x * _noise(x, 1.0 - p)
