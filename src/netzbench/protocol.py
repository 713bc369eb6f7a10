"""The training protocol: every choice on which the paper's reference implementation and the strict
protocol differ, one named switch each.

``protocol: paper`` reproduces the reference implementation (the ``graphnetz``
package, 0.2.0, whose code is what the paper ran) as closely as the data
allows; ``protocol: strict`` is the protocol this benchmark stands for: a
held-out test split for every family, selection only on validation, fresh
negatives, features that see training edges only. ``protocol_overrides`` sets
single switches against the preset (``{link_negatives: fresh}``), which is how
each difference is measured on its own. The resolved switches are part of
result identity: they enter every per-seed cache key and run record, and the
train stages depend on them.

Choices both protocols share (and the reference makes too) are not switches:
seeded, shuffled mini-batches of 32 graphs (graph classification) and 64
(graph regression), full-batch Adam for node- and link-level tasks (below
``train.sampling``'s threshold, which no published task reaches), the
models' reference configurations, the epoch budgets of ``params.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class Switch:
    name: str
    paper: str
    strict: str
    choices: dict[str, str]  # value -> what it does
    family: str  # what it acts on: graph, graph_reg, link_pred, link_any (both link kinds), features, relational,
    #              synthetic (see APPLIES)
    #: False for a switch that only chooses which recorded series is the headline: it never reaches
    #: training, so it stays out of the per-seed key (both values share one trained seed)
    training: bool = True

    def describe(self, value: str) -> str:
        return self.choices[value]


SWITCHES: tuple[Switch, ...] = (
    Switch("graph_split", "80_20", "80_10_10", {
        "80_20": "graphs shuffled per seed and cut 80/20; the 20 % is both the validation and the reported set "
                 "(the reference's 'validation accuracy')",
        "80_10_10": "graphs shuffled per seed and cut 80/10/10; selection on the 10 % validation, the report on "
                    "the 10 % test set"}, "graph"),
    Switch("regression_loss", "mse", "l1", {
        "mse": "mean squared error (the reference), reported as MAE",
        "l1": "mean absolute error, the reported metric itself"}, "graph_reg"),
    Switch("link_split", "5_10", "10_10", {
        "5_10": "5 % of the undirected edges held out for validation, 10 % for test (the reference's RandomLinkSplit)",
        "10_10": "10 % validation, 10 % test"}, "link_pred"),
    Switch("link_negatives", "fixed", "fresh", {
        "fixed": "one set of training negatives per seed, sampled with the split (the reference's RandomLinkSplit)",
        "fresh": "new training negatives every epoch"}, "link_pred"),
    Switch("link_eval_negatives", "uniform", "hard", {
        "uniform": "validation/test negatives drawn uniformly among the non-edges (the reference's RandomLinkSplit): "
                   "one per positive for AUC/AP; for MRR/Hits each positive ranked against its own 50 candidates, "
                   "half replacing each endpoint by a uniform node",
        "degree": "degree-corrected negatives (Aiyappa et al. 2025): nodes drawn as often as they end one of the "
                  "split's positives, so negatives have the positives' degree distribution: both endpoints of the "
                  "one AUC/AP negative per positive, the replacing node of each of the 50 ranking candidates",
        "hard": "HeaRT-style hard negatives (Li et al. 2023): per positive 50 candidates, half replacing each "
                "endpoint by the nodes that resource allocation, personalized PageRank or feature cosine on the "
                "training graph ranks highest (the minimum of the ranks); AUC/AP against all of them pooled; "
                "fixed per seed and shared by every model; every model is also scored against degree-corrected "
                "negatives, a second view no heuristic chose (series *_degree_*)"}, "link_pred"),
    Switch("link_metric", "auc", "mrr", {
        "auc": "a link task's headline is test ROC-AUC of positives against the negatives (the paper)",
        "mrr": "a link task's headline is test MRR, each positive ranked among its own negatives (ties broken "
               "at random, in expectation); knowledge graphs: filtered, over head and tail corruptions"}, "link_any", training=False),
    Switch("structural_features", "reference", "train_degree", {
        "reference": "as the reference's loaders: a Netzschleuder network gets one-hot node identities up to 8,192 "
                     "nodes, else [log1p(deg)/log n, its square, 1] with degrees over all edges, held-out ones "
                     "included; a knowledge graph gets the same 3-d features from its training heads' out-degree",
        "train_degree": "[1, log(1 + degree)] with degrees over the training edges only"}, "features"),
    Switch("relational_message_passing", "directed_triples", "simple_graph", {
        "directed_triples": "messages along the training triples as given: head -> tail, one per triple",
        "simple_graph": "messages over the simple undirected graph of the training triples (both directions, "
                        "parallel edges merged)"}, "relational"),
    Switch("relational_negatives", "tail_filtered", "head_or_tail", {
        "tail_filtered": "fresh tail corruptions every epoch, redrawn when they hit a training triple",
        "head_or_tail": "fresh corruptions of the head or the tail (equal odds) every epoch, redrawn while they are "
                        "a known triple (training or held-out, either direction): no held-out fact is trained as "
                        "false"}, "relational"),
    Switch("relational_eval_negatives", "resampled", "fixed", {
        "resampled": "validation/test AUC against one random corruption per triple, drawn anew at every evaluation "
                     "(unfiltered)",
        "fixed": "validation/test AUC against one corruption per triple, fixed per seed (unfiltered)"}, "relational"),
    Switch("relational_eval_side", "tail", "head_or_tail", {
        "tail": "the AUC corruption replaces the tail (the reference)",
        "head_or_tail": "the AUC corruption replaces the head or the tail, with equal odds"}, "relational"),
    Switch("relational_held_out_overlap", "keep", "drop", {
        "keep": "the canonical training triples as given, also those that restate a validation or test triple "
                "(the same relation, either direction: WN18RR's symmetric relations hold the reverse of a third "
                "of its held-out triples; FB15k-237 none)",
        "drop": "training triples that restate a validation or test triple (the same relation, either direction) "
                "are left out of training: messages, features, positives"}, "relational"),
    Switch("relational_inputs", "features", "embedding", {
        "features": "the encoder's input is a fixed feature vector per entity (`structural_features`): entities "
                    "of equal degree look the same to it",
        "embedding": "the encoder's input is a learnt embedding per entity (64-d, N(0, 1) initialised, trained with "
                     "the model), as knowledge-graph models usually have: entities of equal degree can differ"},
           "relational"),
    Switch("relational_ranking", "sampled", "full", {
        "sampled": "knowledge graphs' MRR and Hits@k only against 50 filtered candidates per held-out triple and "
                   "side (fixed per seed), every epoch",
        "full": "also the knowledge-graph literature's filtered ranking (test_full_mrr, test_full_hits{1,3,10}): the "
                "true entity ranked against every entity, head and tail, every known triple (training, validation, "
                "test) filtered; computed only at the checkpoints a report can select (the last evaluated epoch and "
                "the earliest best validation MRR), NaN elsewhere; with link_metric: mrr, the headline"},
           "relational"),
    Switch("relation_init", "normal", "xavier", {
        "normal": "DistMult relation vectors initialised N(0, 1) (an embedding table's default)",
        "xavier": "DistMult relation vectors initialised Xavier-uniform"}, "relational"),
    Switch("synthetic_graphs", "reference", "netzbench", {
        "reference": "the reference's generators: TSP as the k = 4 nearest-neighbour graph of the cities; Ising "
                     "as independent spins on an open grid with diagonal neighbours and self-loops",
        "netzbench": "this repository's generators: TSP as a 2-opt tour plus k = 3 nearest neighbours; Ising as a "
                     "Metropolis-sampled configuration on a periodic square lattice"}, "synthetic"),
)
BY_NAME = {s.name: s for s in SWITCHES}
PROTOCOLS = ("paper", "strict")

#: second views of homogeneous link evaluation: under ``link_eval_negatives: hard`` -- negatives chosen by
#: resource allocation, personalized PageRank and feature cosine, so a heuristic is judged against negatives
#: picked to fool it -- every link model, heuristics included, is also scored against ``degree``
#: (degree-corrected) negatives, which no score chose, in series of their own (:func:`in_view`:
#: ``{val,test}_degree_{auc,ap,mrr,hits1,hits3,hits10}``, baselines ``test_constant_degree_{auc,mrr}``)
LINK_EVAL_VIEWS = ("degree",)


def in_view(series: str, view: str) -> str:
    """The name of ``series`` scored in the second view ``view``: ``test_mrr`` -> ``test_degree_mrr``."""
    split, _, metric = series.partition("_")
    return f"{split}_{view}_{metric}"


def eval_view(series: str, switches) -> str:
    """Which negatives a link task's ``series`` was scored against: a second view's own
    (``test_degree_mrr``, ``test_constant_degree_mrr``: ``degree``), else the run's ``link_eval_negatives``
    (``switches``: the resolved protocol, a :class:`Protocol` or a mapping of switches)."""
    inner = series.split("_")[1:-1]
    view = next((v for v in LINK_EVAL_VIEWS if v in inner), None)
    if view:
        return view
    values = switches.values() if hasattr(switches, "link_eval_negatives") else dict(switches)
    return values.get("link_eval_negatives", BY_NAME["link_eval_negatives"].strict)


#: which switches can move a task of each kind (synthetic_graphs acts at fetch, on the data)
APPLIES = {"node_cls": (), "graph_cls": ("graph",), "graph_reg": ("graph", "graph_reg"),
           "link_pred": ("link_pred", "link_any", "features"), "relational": ("relational", "link_any", "features")}


def _strict(name: str) -> str:
    """The strict protocol's value of switch ``name``: what a switch nobody set is (its one default)."""
    return BY_NAME[name].strict


@dataclass(frozen=True)
class Protocol:
    """The resolved switches, one attribute each (names and choices: :data:`SWITCHES`).

    A switch not given is the strict protocol's value, read from :data:`SWITCHES`: the only default
    there is, for every trainer alike. :meth:`resolve` turns a preset and its overrides into one (once
    per run, by :class:`netzbench.settings.Settings`); :meth:`of` reads the switches a job or a run
    record carries (a task's part of them: the others keep their defaults, which cannot move it)."""

    graph_split: str = _strict("graph_split")
    regression_loss: str = _strict("regression_loss")
    link_split: str = _strict("link_split")
    link_negatives: str = _strict("link_negatives")
    link_eval_negatives: str = _strict("link_eval_negatives")
    link_metric: str = _strict("link_metric")
    structural_features: str = _strict("structural_features")
    relational_message_passing: str = _strict("relational_message_passing")
    relational_negatives: str = _strict("relational_negatives")
    relational_eval_negatives: str = _strict("relational_eval_negatives")
    relational_eval_side: str = _strict("relational_eval_side")
    relational_held_out_overlap: str = _strict("relational_held_out_overlap")
    relational_inputs: str = _strict("relational_inputs")
    relational_ranking: str = _strict("relational_ranking")
    relation_init: str = _strict("relation_init")
    synthetic_graphs: str = _strict("synthetic_graphs")

    def __post_init__(self):
        for name, value in self.values().items():
            if value not in BY_NAME[name].choices:
                raise ValueError(f"protocol switch {name!r} must be one of {list(BY_NAME[name].choices)}, "
                                 f"got {value!r}")

    @classmethod
    def resolve(cls, preset: str, overrides: Mapping[str, str] | None = None) -> Protocol:
        """Every switch under the preset ``preset`` (``paper`` or ``strict``) with ``overrides`` applied
        (names and values validated by :mod:`netzbench.params` before)."""
        if preset not in PROTOCOLS:
            raise ValueError(f"unknown protocol {preset!r}; protocols: {list(PROTOCOLS)}")
        return cls(**{**{s.name: getattr(s, preset) for s in SWITCHES}, **dict(overrides or {})})

    @classmethod
    def of(cls, switches: Protocol | Mapping[str, str] | None) -> Protocol:
        """``switches`` as a :class:`Protocol`: a mapping of some switches (a job's, a record's; none: the
        strict protocol) with the rest at their defaults; a :class:`Protocol` as it is."""
        if isinstance(switches, Protocol):
            return switches
        return cls(**dict(switches or {}))

    def values(self) -> dict[str, str]:
        """Every switch's value, in :data:`SWITCHES`' order (a new plain dict)."""
        return {s.name: getattr(self, s.name) for s in SWITCHES}

    def for_task(self, family: str, relational: bool = False) -> dict[str, str]:
        """The switches that can move a task of ``family`` (:func:`for_task`)."""
        return for_task(self.values(), family, relational=relational)

    def differences(self) -> dict[str, str]:
        """The switches at which this protocol differs from the paper's (:func:`differences`)."""
        return differences(self.values())


def for_task(values: dict[str, str], family: str, relational: bool = False) -> dict[str, str]:
    """The switches of ``values`` that can move a task of ``family`` (the part of the protocol that
    enters its cache keys, so a protocol change retrains only the tasks it can move)."""
    kinds = APPLIES["relational" if relational else family]
    return {s.name: values[s.name] for s in SWITCHES if s.family in kinds}


def trained(values: dict[str, str]) -> dict[str, str]:
    """The switches of ``values`` that reach training (what a seed's key and its trainer get)."""
    return {name: v for name, v in values.items() if BY_NAME[name].training}


def differences(values: dict[str, str]) -> dict[str, str]:
    """The switches at which ``values`` differ from the paper protocol, with their values."""
    return {name: v for name, v in values.items() if v != BY_NAME[name].paper}
