"""The leakage guard's primitives: undirected ids and channel membership (the trainers' use of it is
tested with the link trainers)."""

import numpy as np
import pytest

from netzbench.training.leakage import CHANNELS, held_out_leaks, pair_ids, triple_ids


def test_pair_ids_agree_for_a_pair_and_its_reverse_and_differ_otherwise():
    pairs = np.array([[0, 3, 2], [3, 0, 5]])
    ids = pair_ids(pairs, 10)
    assert ids[0] == ids[1] == 3 and ids[2] == 25
    assert len(set(pair_ids(np.array([[1, 2], [2, 1]]), 10)) | set(pair_ids(np.array([[1], [3]]), 10))) == 2


def test_triple_ids_keep_the_relation():
    a = triple_ids(np.array([[1], [0], [2]]), 5, 3)
    assert a == triple_ids(np.array([[2], [0], [1]]), 5, 3)  # the inverse triple
    assert a != triple_ids(np.array([[1], [1], [2]]), 5, 3)  # the same entities, another relation


def test_a_planted_held_out_edge_is_caught_in_the_channel_it_reaches():
    n = 20
    held = pair_ids(np.array([[1, 4], [2, 9]]), n)
    train = np.array([[0, 3, 5], [1, 6, 7]])
    assert held_out_leaks(held, message_passing=pair_ids(train, n), train_negatives=None) == []
    planted = np.concatenate([train, [[9], [4]]], axis=1)  # (4, 9) reversed
    assert held_out_leaks(held, message_passing=pair_ids(planted, n),
                          structural_features=pair_ids(planted, n)) == ["message_passing", "structural_features"]
    assert held_out_leaks(held, train_negatives=pair_ids(np.array([[2], [1]]), n)) == ["train_negatives"]
    assert held_out_leaks(np.array([], dtype=np.int64), message_passing=pair_ids(planted, n)) == []


def test_unknown_channels_are_refused():
    with pytest.raises(ValueError, match="unknown leakage channel"):
        held_out_leaks(np.array([1]), features=np.array([1]))
    assert CHANNELS == ("message_passing", "train_negatives", "structural_features")
