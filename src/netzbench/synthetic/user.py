"""A user's seed-aware loader (``custom_tasks`` with a ``seed`` keyword) called like a generator.

The loader runs at training time, once per seed; its module's sha256 is in
the task's ``meta.json``, so editing it changes the data hash.
"""

from __future__ import annotations

from ..graphs.convert import to_arrays
from ..paths import import_ref


def generate(seed: int, loader: str, family: str, root: str = "") -> tuple[dict, dict]:
    """``loader(root, seed=seed)`` converted to the processed layout of ``family``."""
    return to_arrays(import_ref(loader)(root, seed=seed), family), {}
