"""Seeded random streams: one independent numpy stream per (purpose, seed).

Generators, splits and negative samplers each draw from their own stream, so
adding seeds never changes the draws of existing ones and no stream depends on
how many numbers another consumed (model initialisation order, say).
"""

from __future__ import annotations

import zlib

import numpy as np


def rng_for(name: str, seed: int) -> np.random.Generator:
    """An independent numpy stream for purpose (or generator) ``name`` and run seed ``seed``."""
    return np.random.default_rng(np.random.SeedSequence([int(seed), zlib.crc32(name.encode())]))
