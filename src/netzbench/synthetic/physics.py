"""Physics: a square lattice carrying an Ising spin field."""

from __future__ import annotations

import numpy as np

from ..graphs.rng import rng_for
from .common import link_graph


def ising_lattice(seed: int, side: int = 20, temperature: float = 2.27, sweeps: int = 50,
                  lattice: str = "periodic_square", spins: str = "metropolis") -> tuple[dict, dict]:
    """A square lattice carrying an Ising spin field as node features.

    ``lattice``: ``periodic_square`` (4 neighbours, periodic boundaries) or
    ``reference_grid`` (8 neighbours, diagonals included, open boundaries, and
    a self-loop on every node: the reference implementation's grid, whose edge
    split holds self-loops out as positives like any edge). ``spins``:
    ``metropolis`` (an equilibrium configuration after ``sweeps``
    checkerboard Metropolis sweeps at ``temperature``) or ``independent``
    (each spin +1 with probability :math:`\tanh(1/T)/2 + 1/2`, the
    reference's cheap proxy).
    """
    rng = rng_for("ising_lattice", seed)
    if spins == "independent":
        p_up = np.tanh(1.0 / max(temperature, 1e-6)) / 2 + 0.5
        field = np.where(rng.random((side, side)) < p_up, 1, -1).astype(np.int8)
    elif spins == "metropolis":
        field = _metropolis(rng, side, temperature, sweeps)
    else:
        raise ValueError(f"spins must be 'metropolis' or 'independent', got {spins!r}")
    idx = np.arange(side * side).reshape(side, side)
    if lattice == "periodic_square":
        src = np.concatenate([idx.ravel(), idx.ravel()])
        dst = np.concatenate([np.roll(idx, -1, 1).ravel(), np.roll(idx, -1, 0).ravel()])
    elif lattice == "reference_grid":
        pairs = [(idx[:, :-1], idx[:, 1:]), (idx[:-1, :], idx[1:, :]), (idx[:-1, :-1], idx[1:, 1:]),
                 (idx[:-1, 1:], idx[1:, :-1]), (idx, idx)]
        src = np.concatenate([a.ravel() for a, _ in pairs])
        dst = np.concatenate([b.ravel() for _, b in pairs])
    else:
        raise ValueError(f"lattice must be 'periodic_square' or 'reference_grid', got {lattice!r}")
    return link_graph(field.reshape(-1, 1), src, dst, self_loops=lattice == "reference_grid")


def _metropolis(rng: np.random.Generator, side: int, temperature: float, sweeps: int) -> np.ndarray:
    spins = rng.choice(np.array([-1, 1], dtype=np.int8), size=(side, side))
    ii, jj = np.indices((side, side))
    checker = [(ii + jj) % 2 == parity for parity in (0, 1)]
    for _ in range(sweeps):
        for mask in checker:  # checkerboard updates keep each half-sweep exact
            nb = (
                np.roll(spins, 1, 0) + np.roll(spins, -1, 0) + np.roll(spins, 1, 1) + np.roll(spins, -1, 1)
            ).astype(np.float64)
            delta = 2.0 * spins * nb
            accept = (delta <= 0) | (rng.random((side, side)) < np.exp(-delta / temperature))
            spins = np.where(mask & accept, -spins, spins).astype(np.int8)
    return spins
