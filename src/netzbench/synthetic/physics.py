"""Physics: a periodic square lattice carrying an equilibrium Ising spin field."""

from __future__ import annotations

import numpy as np

from ..graphs.rng import rng_for
from .common import link_graph


def ising_lattice(seed: int, side: int = 20, temperature: float = 2.27, sweeps: int = 50) -> tuple[dict, dict]:
    """Periodic square lattice with a Metropolis-sampled Ising spin field as node features."""
    rng = rng_for("ising_lattice", seed)
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
    idx = np.arange(side * side).reshape(side, side)
    right, down = np.roll(idx, -1, 1), np.roll(idx, -1, 0)
    return link_graph(spins.reshape(-1, 1), np.concatenate([idx.ravel(), idx.ravel()]),
                      np.concatenate([right.ravel(), down.ravel()]))
