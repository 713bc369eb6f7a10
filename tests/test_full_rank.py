"""Knowledge graphs' filtered ranking against every entity (training/full_rank.py): checked against a
brute-force reference that scores every candidate one by one, ties included."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import torch

from netzbench.models.adapters import DistMultLink
from netzbench.models.heuristics import AdamicAdar, PreferentialAttachment, training_adjacency
from netzbench.training import full_rank as FR


class _Table(torch.nn.Module):
    """Fixed embeddings: the encoder returns a given table."""

    def __init__(self, table):
        super().__init__()
        self.table = torch.nn.Parameter(torch.as_tensor(table, dtype=torch.float32))

    def forward(self, x, edge_index):
        return self.table


def _kg(n=40, num_rel=3, seed=0):
    rng = np.random.default_rng(seed)
    heads = rng.integers(0, n, 400)
    trip = np.unique(np.stack([heads, rng.integers(0, num_rel, 400), (heads + rng.integers(1, 9, 400)) % n]), axis=1)
    trip = trip[:, rng.permutation(trip.shape[1])]
    assert trip.shape[1] >= 280
    return {"train": trip[:, :220], "valid": trip[:, 220:250], "test": trip[:, 250:280]}


def _expected_rr(above: int, tied: int) -> Fraction:
    """E[1/R], R uniform on above+1 .. above+tied+1 (the project's tie convention), exactly."""
    return sum(Fraction(1, r) for r in range(above + 1, above + tied + 2)) / (tied + 1)


def _expected_hits(above: int, tied: int, k: int) -> Fraction:
    return Fraction(sum(1 for r in range(above + 1, above + tied + 2) if r <= k), tied + 1)


def _brute_force(score, test, known_set, n):
    """MRR and Hits@{1,3,10} by scoring each candidate triple alone with ``score(h, r, t) -> float``."""
    rr, hits = [], {k: [] for k in (1, 3, 10)}
    for side in ("tail", "head"):
        for h, r, t in test.T.tolist():
            true = score(h, r, t)
            above = tied = 0
            for e in range(n):
                cand = (h, r, e) if side == "tail" else (e, r, t)
                if cand in known_set:  # filtered (the true triple among them)
                    continue
                s = score(*cand)
                above += s > true
                tied += s == true
            rr.append(_expected_rr(above, tied))
            for k in hits:
                hits[k].append(_expected_hits(above, tied, k))
    out = {"test_full_mrr": float(sum(rr) / len(rr))}
    out.update({f"test_full_hits{k}": float(sum(v) / len(v)) for k, v in hits.items()})
    return out


def _elementwise(model, z):
    def score(h, r, t):
        with torch.inference_mode():
            hr = model.head_relation(z, torch.tensor([[h], [r], [t]]))
            return float((z[[t]] * hr).sum(-1)[0])
    return score


@pytest.mark.parametrize("ties", ["none", "groups", "constant"])
def test_distmult_full_rank_equals_brute_force_with_and_without_ties(ties):
    trip = _kg()
    n, num_rel, d = 40, 3, 8
    rng = np.random.default_rng(1)
    table = rng.normal(size=(n, d)).astype(np.float32)
    if ties == "groups":  # entities in groups of four share an embedding: every candidate of a group ties
        table = table[np.arange(n) // 4 * 4]
    elif ties == "constant":
        table[:] = 0.5
    model = DistMultLink(_Table(table), num_rel, d)
    z = model(None, None).detach()
    every = np.concatenate(list(trip.values()), axis=1)
    known = FR.KnownTriples(every, n, num_rel)
    got = FR.evaluate("test", model, z, trip["test"], known)
    want = _brute_force(_elementwise(model, z), trip["test"], set(map(tuple, every.T.tolist())), n)
    assert got == pytest.approx(want, abs=1e-12)
    if ties == "constant":  # every unfiltered candidate ties: the constant predictor's own value
        assert got["test_full_mrr"] == pytest.approx(FR.constant_mrr(trip["test"], known), abs=1e-12)
    if ties == "none":
        assert got["test_full_hits1"] <= got["test_full_hits3"] <= got["test_full_hits10"]


def test_blocks_and_the_near_tie_rescoring_do_not_change_the_counts(monkeypatch):
    trip = _kg(seed=3)
    n, num_rel, d = 40, 3, 16
    table = np.random.default_rng(2).normal(size=(n, d)).astype(np.float32)[np.arange(n) // 2 * 2]
    model = DistMultLink(_Table(table), num_rel, d)
    z = model(None, None).detach()
    known = FR.KnownTriples(np.concatenate(list(trip.values()), axis=1), n, num_rel)
    with torch.inference_mode():
        whole = FR.rank_counts(FR.rows_for(model, z, n), trip["test"], known, block=1000)
        small = FR.rank_counts(FR.rows_for(model, z, n), trip["test"], known, block=3)
    assert all(torch.equal(a, b) for a, b in zip(whole, small))
    assert whole[1].sum() > 0  # the paired entities tie: the test exercises ties


def test_every_model_path_agrees_with_its_brute_force():
    """A heuristic (scores from the training graph, relations ignored) and a model with its own
    ``score`` (the generic path) both rank as their brute force does."""
    trip = _kg(seed=5)
    n, num_rel = 40, 3
    every = np.concatenate(list(trip.values()), axis=1)
    known = FR.KnownTriples(every, n, num_rel)
    known_set = set(map(tuple, every.T.tolist()))
    adj = training_adjacency(n, trip["train"][[0, 2]])
    for heuristic in (AdamicAdar(), PreferentialAttachment()):  # counts tie a lot
        got = FR.evaluate("test", heuristic, None, trip["test"], known, adjacency=adj)
        score = lambda h, r, t, m=heuristic: float(m.scores(adj, np.array([h]), np.array([t]))[0])  # noqa: E731
        assert got == pytest.approx(_brute_force(score, trip["test"], known_set, n), abs=1e-12)

    class Other(DistMultLink):  # its own score: the generic path
        def score(self, z, triples):
            return -(z[triples[0]] + self.relations[triples[1]] - z[triples[2]]).abs().sum(-1)

    model = Other(_Table(np.random.default_rng(4).normal(size=(n, 4)).round(0)), num_rel, 4)
    z = model(None, None).detach()
    assert isinstance(FR.rows_for(model, z, n), FR.ModelRows)

    def score(h, r, t):
        with torch.inference_mode():
            return float(model.score(z, torch.tensor([[h], [r], [t]]))[0])

    got = FR.evaluate("test", model, z, trip["test"], known)
    assert got == pytest.approx(_brute_force(score, trip["test"], known_set, n), abs=1e-12)


def test_a_worked_example():
    """Three entities, one relation: the known triples filter, the rest rank with ties counted in
    expectation."""
    n = 3
    trip = np.array([[0], [0], [1]])  # (0, r, 1) held out
    known = FR.KnownTriples(np.array([[0, 0], [0, 0], [1, 2]]), n, 1)  # (0, r, 2) is also known
    # tail side of (0, r, 1): candidates 0 (unfiltered) and 2 (filtered); head side of (., r, 1): 1, 2
    table = np.array([[1.0], [1.0], [5.0]], dtype=np.float32)
    model = DistMultLink(_Table(table), 1, 1)
    with torch.no_grad():
        model.relations.fill_(1.0)
    z = model(None, None).detach()
    # tail: score(0, 0) = 1 ties score(0, 1) = 1 -> E[1/R] = (1 + 1/2)/2; head: score(1, 1) = 1 ties,
    # score(2, 1) = 5 above -> R uniform on 2..3: (1/2 + 1/3)/2
    above, tied = FR.rank_counts(FR.rows_for(model, z, n), trip, known)
    assert above.tolist() == [0, 1] and tied.tolist() == [1, 1]
    got = FR.full_rank_metrics("test", above, tied)
    assert got["test_full_mrr"] == pytest.approx((0.75 + 5 / 12) / 2)
    assert got["test_full_hits1"] == pytest.approx(0.25)
    assert got["test_full_hits3"] == 1.0


def test_filter_completions_are_exactly_the_known_triples():
    trip = _kg(seed=7)
    every = np.concatenate(list(trip.values()), axis=1)
    known = FR.KnownTriples(every, 40, 3)
    facts = set(map(tuple, every.T.tolist()))
    test = trip["test"]
    for side in ("tail", "head"):
        fixed = test[0] if side == "tail" else test[2]
        rows, ents = known.completions(fixed, test[1], side)
        got = {(int(i), int(e)) for i, e in zip(rows, ents)}
        want = {(i, e) for i in range(test.shape[1]) for e in range(40)
                if ((int(fixed[i]), int(test[1, i]), e) if side == "tail" else (e, int(test[1, i]), int(fixed[i])))
                in facts}
        assert got == want


def test_non_finite_scores_are_refused():
    trip = _kg()
    table = np.random.default_rng(1).normal(size=(40, 4)).astype(np.float32)
    table[3] = np.nan
    model = DistMultLink(_Table(table), 3, 4)
    known = FR.KnownTriples(np.concatenate(list(trip.values()), axis=1), 40, 3)
    with pytest.raises(ValueError, match="not finite"):
        FR.evaluate("test", model, model(None, None).detach(), trip["test"], known)


# ------------------------------------------------------------------------------------- wired into training
def _kg_arrays(seed=0):
    trip = _kg(seed=seed)
    out = {"num_nodes": np.array([40]), "num_relations": np.array([3])}
    for part, t in trip.items():
        out[f"{part}_edge_index"], out[f"{part}_edge_type"] = t[[0, 2]], t[1]
    return out


class _Lin(torch.nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.lin = torch.nn.Linear(i, o)

    def forward(self, x, edge_index):
        return self.lin(x)


def test_strict_knowledge_graphs_rank_every_entity_at_the_selectable_checkpoints():
    from netzbench.protocol import Protocol
    from netzbench.training.fit import Hyper
    from netzbench.training.relational import train_relational

    arrays = _kg_arrays()
    strict, paper = Protocol.resolve("strict").values(), Protocol.resolve("paper").values()
    build = lambda i, h, o: DistMultLink(_Lin(i, o), 3, o)  # noqa: E731
    hp = Hyper(hidden_channels=8, lr=0.05, weight_decay=0.0, epochs=6)
    torch.manual_seed(0)
    fit = train_relational(build, arrays, 0, hp, protocol=strict)
    h = fit.history
    full = h["test_full_mrr"]
    assert len(full) == len(h["val_mrr"]) == 6 and {"test_full_hits1", "test_full_hits3", "test_full_hits10"} <= set(h)
    val = np.asarray(h["val_mrr"])
    best = int(np.argmax(val))  # the earliest best: what best_val selects
    assert np.isfinite(full[-1]) and np.isfinite(full[best])
    assert all(np.isnan(v) for i, v in enumerate(full) if i not in (best, 5))
    assert 0 < full[-1] < 1 and fit.baseline["test_constant_full_mrr"] < 0.2
    # the best checkpoint's value is what a run that stops there ends with (deterministic per seed)
    torch.manual_seed(0)
    short = train_relational(build, arrays, 0, Hyper(hidden_channels=8, lr=0.05, weight_decay=0.0, epochs=best + 1),
                             protocol=strict)
    assert short.history["test_full_mrr"][-1] == full[best]
    assert short.history["val_mrr"] == h["val_mrr"][:best + 1]
    # the paper protocol records no full ranking, and the sampled series do not move
    torch.manual_seed(0)
    sampled = train_relational(build, arrays, 0, hp, protocol={**strict, "relational_ranking": "sampled"})
    assert not any(k.startswith("test_full") for k in sampled.history)
    assert {k: v for k, v in h.items() if not k.startswith("test_full")} == sampled.history
    torch.manual_seed(0)
    assert not any(k.startswith("test_full") for k in train_relational(build, arrays, 0, hp, protocol=paper).history)


def test_heuristics_get_the_full_ranking_too():
    from netzbench.protocol import Protocol
    from netzbench.training.fit import Hyper
    from netzbench.training.relational import train_relational

    arrays = _kg_arrays(seed=2)
    fit = train_relational(lambda i, h, o: AdamicAdar(), arrays, 0, Hyper(8, 0.01, 0.0, 1),
                           protocol=Protocol.resolve("strict"))
    trip = _kg(seed=2)
    every = np.concatenate(list(trip.values()), axis=1)
    want = FR.evaluate("test", AdamicAdar(), None, trip["test"], FR.KnownTriples(every, 40, 3),
                       adjacency=training_adjacency(40, trip["train"][[0, 2]]))
    assert {k: v[0] for k, v in fit.history.items() if k.startswith("test_full")} == want


def test_the_strict_headline_of_a_knowledge_graph_is_its_full_ranking():
    from netzbench import families
    from netzbench.protocol import Protocol
    from netzbench.report.series import validation_series

    strict, paper = Protocol.resolve("strict"), Protocol.resolve("paper")
    kg = strict.for_task("link_pred", relational=True)
    assert families.headline("link_pred", kg) == ("test_full_mrr", "higher")
    assert families.headline("link_pred", strict.for_task("link_pred")) == ("test_mrr", "higher")
    assert families.headline("link_pred", paper.for_task("link_pred", relational=True))[0] == "test_auc"
    # selected on the sampled validation MRR, at whose best checkpoint the full rank was computed
    assert validation_series("test_full_mrr") == "val_mrr" and validation_series("test_acc") == "val_acc"


# ------------------------------------------------------------------------------------------- in the report
def test_a_full_ranking_headline_draws_its_sampled_curve_and_its_own_constant_predictor():
    from netzbench.report.degenerate import baseline_name
    from netzbench.report.selection import learning_curves, selected_indices
    from netzbench.report.series import TaskInfo, curve_series

    assert curve_series("test_full_mrr") == "test_mrr" and curve_series("test_acc") == "test_acc"
    nan = float("nan")
    runs = [{"val_mrr": [0.1, 0.3, 0.2], "test_mrr": [0.1, 0.2, 0.25], "test_full_mrr": [nan, 0.05, 0.04]},
            {"val_mrr": [0.1, 0.2, 0.3], "test_mrr": [0.1, 0.2, 0.3], "test_full_mrr": [nan, nan, 0.06]}]
    info = {"kg": TaskInfo("test_full_mrr", "higher", "link_pred")}
    curves = learning_curves({"kg": {"GCN": runs}}, info, {}, [0, 1], ci=0.95)
    assert curves["kg"]["GCN"]["mean"] == pytest.approx([0.1, 0.2, 0.275])  # every epoch: the sampled series
    best = selected_indices({"kg": {"GCN": runs}}, info, "best_val")["kg"]["GCN"]
    final = selected_indices({"kg": {"GCN": runs}}, info, "final")["kg"]["GCN"]
    assert best == [1, 2] and final == [2, 2]  # selected on val_mrr: each lands where the full rank was computed
    assert all(np.isfinite(r["test_full_mrr"][i]) for r, i in zip(runs, best))
    names = ["test_constant_auc", "test_constant_full_mrr", "test_constant_mrr"]
    assert baseline_name("test_full_mrr", names) == "test_constant_full_mrr"
    assert baseline_name("test_mrr", ["test_constant_degree_mrr", "test_constant_mrr"]) == "test_constant_mrr"
    assert baseline_name("test_acc", ["test_majority_acc"]) == "test_majority_acc"
