"""Structure controls: a task's data with its edges replaced, features, labels and splits unchanged.

Does the graph matter? Train the same model on the task as it is and on a control, seed by seed:

- ``no_edges``: no edges at all (the model sees each node's features alone);
- ``rewired``: a degree-preserving rewiring of the graph, :math:`10 |E|` double-edge swaps
  (:math:`(a,b),(c,d) \\to (a,d),(c,b)`, refused when one would make a self-loop or a parallel edge), so
  every node keeps its degree and the rest of the structure is random;
- ``random_graph``: as many edges as the graph has, between uniformly drawn pairs.

The controls are drawn per training seed (seed ``s`` draws control ``s``), stored as the per-seed
instances of a task folder of their own (``data/<task>~<control>/``, ``meta.json``: ``control``), so
their cells are cached like any other. A node-classification graph is rewired as a whole; a collection
graph by graph. Link prediction has none: its edges are also its labels, so a control would change the
task, not its input.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..graphs.layout import SEEDS, read_meta, save_arrays, seed_file, task_arrays, write_meta
from ..params import CONTROL_KINDS as CONTROLS
from .standin import both_ways, random_pairs

FAMILIES = ("node_cls", "graph_cls", "graph_reg")
#: swaps per edge of the rewiring (Milo et al. 2003 use about this many for a well-mixed null)
SWAPS_PER_EDGE = 10


class ControlError(ValueError):
    """A control that cannot be made (link prediction, an unknown control)."""


def _pairs(edge_index: np.ndarray) -> np.ndarray:
    """The unique undirected pairs ``i < j`` of ``edge_index`` (self-loops dropped), ``[2, E]``."""
    ei = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    lo, hi = np.minimum(ei[0], ei[1]), np.maximum(ei[0], ei[1])
    keep = lo != hi
    n = int(ei.max(initial=0)) + 1
    key = np.unique(lo[keep] * n + hi[keep])
    return np.stack([key // n, key % n])


def rewire(pairs: np.ndarray, rng: np.random.Generator, swaps_per_edge: int = SWAPS_PER_EDGE) -> np.ndarray:
    """Degree-preserving double-edge swaps of undirected ``pairs`` ``[2, E]`` (module docstring)."""
    a, b = pairs[0].copy(), pairs[1].copy()
    m = len(a)
    if m < 2:
        return pairs.copy()
    present = {(int(x), int(y)) for x, y in zip(np.minimum(a, b), np.maximum(a, b))}
    picks = rng.integers(0, m, (swaps_per_edge * m, 2))
    flips = rng.random(swaps_per_edge * m) < 0.5
    for (i, j), flip in zip(picks, flips):
        if i == j:
            continue
        u, v = (int(a[i]), int(b[i])) if not flip else (int(b[i]), int(a[i]))
        x, y = int(a[j]), int(b[j])
        new1, new2 = (min(u, y), max(u, y)), (min(x, v), max(x, v))  # (u,v),(x,y) -> (u,y),(x,v)
        if u == y or x == v or new1 == new2 or new1 in present or new2 in present:
            continue
        present.discard((min(u, v), max(u, v)))
        present.discard((min(x, y), max(x, y)))
        present.add(new1)
        present.add(new2)
        a[i], b[i], a[j], b[j] = new1[0], new1[1], new2[0], new2[1]
    return np.stack([a, b])



def _controlled(pairs: np.ndarray, n: int, control: str, rng: np.random.Generator) -> np.ndarray:
    if control == "no_edges":
        return np.zeros((2, 0), dtype=np.int64)
    if control == "rewired":
        return rewire(pairs, rng)
    return random_pairs(rng, n, pairs.shape[1])



def control_arrays(arrays: dict, family: str, control: str, seed: int) -> dict:
    """``arrays`` (a task's processed arrays) with the edges replaced by ``control``, drawn with ``seed``."""
    if control not in CONTROLS:
        raise ControlError(f"unknown structure control {control!r}; one of {list(CONTROLS)}")
    if family not in FAMILIES:
        raise ControlError(f"structure controls are for {', '.join(FAMILIES)}: a {family} task's edges are its "
                           "labels, so a control would change the task, not its input")
    rng = np.random.default_rng([seed, CONTROLS.index(control)])
    out = dict(arrays)
    if family == "node_cls":
        n = int(np.asarray(arrays["num_nodes"]))
        out["edge_index"] = both_ways(_controlled(_pairs(arrays["edge_index"]), n, control, rng))
        return out
    node_ptr, edge_ptr, ei = arrays["node_ptr"], arrays["edge_ptr"], arrays["edge_index"]
    parts = []
    for g in range(len(node_ptr) - 1):
        local = ei[:, edge_ptr[g]:edge_ptr[g + 1]]
        n_g = int(node_ptr[g + 1] - node_ptr[g])
        pairs = _pairs(local) if local.size else np.zeros((2, 0), dtype=np.int64)
        parts.append(both_ways(_controlled(pairs, n_g, control, rng)) if n_g > 1 else np.zeros((2, 0), np.int64))
    out["edge_index"] = np.concatenate(parts, axis=1) if parts else np.zeros((2, 0), dtype=np.int64)
    out["edge_ptr"] = np.concatenate([[0], np.cumsum([p.shape[1] for p in parts])]).astype(np.int64)
    return out


def control_dir(data_root: str | os.PathLike, task: str, control: str) -> Path:
    return Path(data_root) / f"{task}~{control}"


def write_control(data_root: str | os.PathLike, task: str, control: str, seeds: list[int]) -> Path:
    """The control's task folder (module docstring) for ``seeds``, written where a seed is missing; the
    source is ``data_root/task`` as fetch wrote it. Returns the folder."""
    source = Path(data_root) / task
    meta = read_meta(source)
    if meta.get("status") != "ok":
        raise ControlError(f"{task}: its data is not here ({meta.get('reason', 'status ' + str(meta.get('status')))})")
    out = control_dir(data_root, task, control)
    (out / SEEDS).mkdir(parents=True, exist_ok=True)
    for s in seeds:
        if not seed_file(out, s).is_file():
            save_arrays(seed_file(out, s), control_arrays(task_arrays(source, s, meta), meta["family"], control, s))
    control_meta = {**{k: v for k, v in meta.items() if k not in ("generator", "generator_params")},
                    "task": f"{task}~{control}", "per_seed": True, "synthetic": True,
                    "control": {"of": task, "kind": control, "swaps_per_edge": SWAPS_PER_EDGE}}
    write_meta(out, control_meta)
    return out
