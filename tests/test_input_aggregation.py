"""GraphSAGE's first layer keeps the aggregation of its input (models/encoders.py: InputAggregatingSAGEConv):
the same values and gradients as SAGEConv through training steps and inference-mode evaluations, and a new
aggregation when the input or the adjacency changes."""

import torch
from torch_geometric.nn import SAGEConv
from torch_geometric.utils import to_torch_csr_tensor

from netzbench.models.encoders import InputAggregatingSAGEConv


def _graph(n=40, seed=0):
    gen = torch.Generator().manual_seed(seed)
    ei = torch.randint(0, n, (2, 300), generator=gen)
    adj = to_torch_csr_tensor(ei.flip(0), size=(n, n))  # adj_t: row = target
    return torch.randn(n, 9, generator=gen), adj


def test_kept_aggregation_gives_sagecons_bits_through_steps_and_evaluations():
    x, adj = _graph()
    runs = []
    for cls in (SAGEConv, InputAggregatingSAGEConv):
        torch.manual_seed(0)
        conv = cls(9, 5)
        opt = torch.optim.Adam(conv.parameters(), lr=0.1)
        seen = []
        for _ in range(3):
            opt.zero_grad()
            y = conv(x, adj)
            y.pow(2).sum().backward()
            opt.step()
            seen += [y.detach(), conv.lin_l.weight.grad.clone()]
            with torch.inference_mode():
                seen.append(conv(x, adj))
        runs.append(seen)
    for a, b in zip(*runs):
        assert torch.equal(a, b)


def test_a_changed_input_or_adjacency_is_aggregated_again():
    x, adj = _graph()
    torch.manual_seed(0)
    conv, ref = InputAggregatingSAGEConv(9, 5), SAGEConv(9, 5)
    ref.load_state_dict(conv.state_dict())
    conv(x, adj)
    assert conv._kept is not None and conv._kept[0] is x
    x.mul_(2.0)  # in place: a new version of the same tensor
    assert torch.equal(conv(x, adj), ref(x, adj))
    x2, adj2 = _graph(seed=1)
    assert torch.equal(conv(x, adj2), ref(x, adj2))
    assert torch.equal(conv(x2, adj2), ref(x2, adj2))


def test_nothing_is_kept_from_inference_mode_or_for_inputs_with_gradients():
    x, adj = _graph()
    conv = InputAggregatingSAGEConv(9, 5)
    with torch.inference_mode():
        conv(x, adj)
    assert conv._kept is None  # an inference tensor could not be saved for a training step's backward
    conv(x.clone().requires_grad_(True), adj)
    assert conv._kept is None
    conv(x, adj)  # training mode: kept, and usable by a training step
    conv(x, adj).sum().backward()
    assert conv._kept is not None
