"""A node whose label is missing (``y < 0``, what a declared or recognised missing code becomes at fetch)
is in no part of the per-seed stratified split, and the labelled nodes are split as ever."""

from __future__ import annotations

import numpy as np

from netzbench.training.splits import stratified_node_split


def test_unlabelled_nodes_are_in_no_mask_and_every_class_trains():
    y = np.array([0, 1, -1, 0, 1, 2, -1, 2, 0, 1, 2, -1, 0])
    for seed in range(5):
        train, val, test = stratified_node_split(y, seed)
        assert not (train | val | test)[y < 0].any()
        assert (train | val | test)[y >= 0].all()  # every labelled node in one part
        assert not (train & val).any() and not (train & test).any() and not (val & test).any()
        assert set(y[train].tolist()) == {0, 1, 2}

