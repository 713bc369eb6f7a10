"""``params.yaml`` resolved once, into one frozen object: :class:`Settings`.

The two entry points (the command line, :mod:`netzbench.cli_common`; the Python API, :mod:`netzbench.api`)
read and validate the params (:mod:`netzbench.params`, where every default is written, once) and turn
them into a :class:`Settings`; everything below them reads its part of it (``settings.train``,
``settings.execution``, ``settings.report``, ...) and never a raw ``params[...]`` lookup. The protocol
is resolved here, once per settings (:meth:`netzbench.protocol.Protocol.resolve`).

What enters a per-seed key (the hyperparameters, the protocol's switches, the model's arguments)
comes out as the same plain dicts the params gave: :meth:`Train.hyperparameters`,
:meth:`Settings.model_config`; :meth:`Settings.to_params` gives the params back, as validated.
This module imports neither torch nor the catalogue.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping

from .params import DEFAULTS, FAMILIES, load_params, merge, validate
from .protocol import Protocol


class FrozenMap(dict):
    """A read-only dict (a mapping the user keys: model arguments, epoch overrides, weights). A dict still
    for JSON and for equality with plain dicts; every mutation raises :class:`TypeError`."""

    def _read_only(self, *_args, **_kwargs):
        raise TypeError("settings are read-only: make new ones (Settings.replace)")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _read_only

    def __reduce__(self):
        return FrozenMap, (dict(self),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __hash__(self):  # frozen dataclasses holding one stay hashable
        return hash(tuple(sorted(self.items(), key=repr)))


def freeze(value: Any) -> Any:
    """``value`` with every dict a :class:`FrozenMap` and every list a tuple, all the way down."""
    if isinstance(value, dict):
        return FrozenMap({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The plain JSON-like value of a frozen one: dicts and lists again (what the params held)."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class Optimiser:
    """``train.<family>``: Adam's learning rate and weight decay."""

    lr: float
    weight_decay: float


@dataclass(frozen=True)
class Sampling:
    """``train.sampling``: neighbour-sampled mini-batches for node- and link-level tasks."""

    mode: str
    min_edges: int
    fanouts: tuple[int, ...]
    batch_size: int
    eval: str

    def as_dict(self) -> dict:
        """The block as params hold it (a seed's ``hp["sampling"]``, hashed into its key)."""
        return {"mode": self.mode, "min_edges": self.min_edges, "fanouts": list(self.fanouts),
                "batch_size": self.batch_size, "eval": self.eval}


@dataclass(frozen=True)
class Train:
    """``train``: width, optimisers, epochs, sampling, splits (everything here can change a result)."""

    hidden_channels: int
    param_budget: int | None
    node_split: str
    eval_every: int
    sampling: Sampling
    parallel_edges: str
    #: family -> its optimiser (``train.node_cls``, ``train.graph_cls``, ...)
    optimisers: Mapping[str, Optimiser]
    #: roster model -> constructor overrides of its reference configuration
    model_config: Mapping[str, Mapping]
    #: task -> epochs (overrides of the catalogue's budget)
    epochs: Mapping[str, int]

    def hyperparameters(self, family: str, epochs: int, relational: bool = False) -> dict:
        """A cell's hyperparameters (a plain dict: it enters the per-seed key and the run record)."""
        opt = self.optimisers[family]
        hp = {"hidden_channels": int(self.hidden_channels), "lr": float(opt.lr),
              "weight_decay": float(opt.weight_decay), "epochs": int(epochs), "eval_every": int(self.eval_every),
              # set: hidden_channels is ignored (each seed's width fits the budget)
              "param_budget": None if self.param_budget is None else int(self.param_budget)}
        if family == "node_cls":  # the split matters to node classification only
            hp["node_split"] = str(self.node_split)
        if family in ("node_cls", "link_pred"):  # graph-level tasks batch by graph (a knowledge graph ignores it)
            hp["sampling"] = self.sampling.as_dict()
        if relational:  # knowledge graphs only: how attention layers pass messages over parallel edges
            hp["parallel_edges"] = str(self.parallel_edges)
        return hp


@dataclass(frozen=True)
class Search:
    """``search``: the optional inner hyperparameter search (an empty space: none)."""

    space: Mapping[str, tuple]
    method: str
    n: int | None
    seed: int

    def as_dict(self) -> dict:
        return {"space": thaw(self.space), "method": self.method, "n": self.n, "seed": self.seed}


@dataclass(frozen=True)
class Execution:
    """``exec``: how seeds run (never what they compute, but ``threads``, ``device`` and ``arithmetic``,
    which enter the per-seed key)."""

    workers: int | None
    device: str
    threads: int
    timeout_s: float | None
    max_rss_gb: float | None
    executor: str
    ray_address: str | None
    warm_s: float
    arithmetic: str


@dataclass(frozen=True)
class Data:
    """``data``: where raw files come from, and what a missing one does."""

    mirror: str | os.PathLike | None
    on_missing: str


@dataclass(frozen=True)
class Controls:
    """``controls``: ``netzbench controls`` (structure controls)."""

    tasks: tuple[str, ...]
    models: tuple[str, ...] | None
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class SeedPlan:
    """``seed_plan``: ``netzbench seeds`` (seed rounds until each comparison is decided)."""

    target_effect: float | None
    looks: tuple[int, ...]
    alpha: float | None


@dataclass(frozen=True)
class ReportOptions:
    """``report``: the statistics and the ranking of the report."""

    alpha: float
    ci: float
    ci_method: str
    bootstrap_n: int
    pairwise_method: str
    epoch_selection: str
    aggregation: str
    equivalence_margin: float
    rank_tasks: tuple[str, ...] | None
    rank_exclude: tuple[str, ...]
    weights: Mapping[str, float] | None
    posthoc: str
    baselines: str

    def ranked_tasks(self, tasks) -> tuple[list[str] | None, list[str]]:
        """``(the tasks of ``tasks`` the across-task statistics rank, or None for all; listed tasks left
        out)``: ``rank_tasks`` keeps the listed tasks that are in ``tasks``, ``rank_exclude`` ranks
        every task but those."""
        tasks = list(tasks)
        if self.rank_tasks is not None:
            return [t for t in self.rank_tasks if t in tasks], [t for t in self.rank_tasks if t not in tasks]
        if self.rank_exclude:
            return [t for t in tasks if t not in self.rank_exclude], []
        return None, []


@dataclass(frozen=True)
class Candidate:
    """``model``/``model_args``: the model benchmarked against the roster (``model`` None: none)."""

    model: str | None
    args: Mapping[str, Any]

    def arguments(self) -> dict:
        """``model_args`` as a plain dict (what the model's constructor and the run record get)."""
        return thaw(self.args)


@dataclass(frozen=True)
class Settings:
    """The whole of ``params.yaml``, validated and resolved: build it with :meth:`load` or
    :meth:`from_params`, change it with :meth:`replace` (which validates and resolves again)."""

    tasks: tuple[str, ...]
    #: the roster (``models``)
    models: tuple[str, ...]
    candidate: Candidate
    seeds: tuple[int, ...]
    #: the protocol's preset (``paper`` | ``strict``) and the switches set against it
    protocol_name: str
    protocol_overrides: Mapping[str, str]
    #: every switch, resolved (once, here)
    protocol: Protocol
    custom_tasks: Mapping[str, Mapping]
    train: Train
    search: Search
    execution: Execution
    data: Data
    controls: Controls
    seed_plan: SeedPlan
    report: ReportOptions

    @classmethod
    def load(cls, path: str | os.PathLike | None = None) -> Settings:
        """``params.yaml`` at ``path`` (default: the current directory's) read, validated and resolved."""
        return cls.from_params(load_params(path))

    @classmethod
    def from_params(cls, params: Mapping) -> Settings:
        """The settings of validated ``params`` (:func:`netzbench.params.validate`'s output)."""
        p = freeze(dict(params))
        train, ex, rep = p["train"], p["exec"], p["report"]
        return cls(
            tasks=p["tasks"], models=p["models"], seeds=p["seeds"],
            candidate=Candidate(p["model"], p["model_args"] or FrozenMap()),
            protocol_name=p["protocol"], protocol_overrides=p["protocol_overrides"] or FrozenMap(),
            protocol=Protocol.resolve(p["protocol"], p["protocol_overrides"]),
            custom_tasks=p["custom_tasks"] or FrozenMap(),
            train=Train(hidden_channels=train["hidden_channels"], param_budget=train["param_budget"],
                        node_split=train["node_split"], eval_every=train["eval_every"],
                        sampling=Sampling(**train["sampling"]), parallel_edges=train["parallel_edges"],
                        optimisers=FrozenMap({f: Optimiser(train[f]["lr"], train[f].get("weight_decay", 0.0))
                                              for f in FAMILIES}),
                        model_config=train["model_config"] or FrozenMap(), epochs=train["epochs"] or FrozenMap()),
            search=Search(space=p["search"]["space"] or FrozenMap(), method=p["search"]["method"], n=p["search"]["n"],
                          seed=p["search"]["seed"]),
            execution=Execution(**ex),
            data=Data(**p["data"]),
            controls=Controls(**p["controls"]),
            seed_plan=SeedPlan(**p["seed_plan"]),
            report=ReportOptions(**rep),
        )

    def to_params(self) -> dict:
        """The params these settings came from (plain dicts and lists, as validated)."""
        train = self.train
        return {
            "tasks": list(self.tasks), "models": list(self.models), "model": self.candidate.model,
            "model_args": thaw(self.candidate.args), "seeds": list(self.seeds), "protocol": self.protocol_name,
            "protocol_overrides": thaw(self.protocol_overrides), "custom_tasks": thaw(self.custom_tasks),
            "train": {"hidden_channels": train.hidden_channels, "param_budget": train.param_budget,
                      "node_split": train.node_split, "eval_every": train.eval_every,
                      "sampling": train.sampling.as_dict(), "parallel_edges": train.parallel_edges,
                      **{f: {"lr": o.lr, "weight_decay": o.weight_decay} for f, o in train.optimisers.items()},
                      "model_config": thaw(train.model_config), "epochs": thaw(train.epochs)},
            "search": self.search.as_dict(),
            "exec": thaw(vars(self.execution)),
            "data": dict(vars(self.data)),
            "controls": {k: thaw(v) for k, v in vars(self.controls).items()},
            "seed_plan": {k: thaw(v) for k, v in vars(self.seed_plan).items()},
            "report": {k: thaw(v) for k, v in vars(self.report).items()},
        }

    def replace(self, **changes) -> Settings:
        """New settings: these with ``changes`` merged in, as params blocks (``train={"epochs": {...}}``,
        ``seeds=[...]``, ``protocol_overrides={...}``), validated and resolved again. A mapping merges key by
        key into the block it names (give the whole value to replace a free mapping: ``replace`` sets
        ``protocol_overrides``, ``train.epochs`` and the like as given)."""
        params = self.to_params()
        for key, value in changes.items():
            if isinstance(value, dict) and isinstance(params.get(key), dict) and key not in _WHOLE:
                params[key] = merge(params[key], {k: v for k, v in value.items() if k not in _WHOLE_IN.get(key, ())})
                params[key].update({k: v for k, v in value.items() if k in _WHOLE_IN.get(key, ())})
            else:
                params[key] = value
        return Settings.from_params(validate(merge(DEFAULTS, params)))

    # --- the parts a cell needs -------------------------------------------------------------------

    def epochs_override(self, task: str) -> int | None:
        """``train.epochs.<task>``, or None (the task trains its catalogue budget)."""
        value = self.train.epochs.get(task)
        return None if value is None else int(value)

    def model_config(self, model: str) -> dict | None:
        """``train.model_config.<model>`` as a plain dict (a roster model's overrides), or None."""
        value = self.train.model_config.get(model)
        return None if value is None else thaw(value)

    def candidate_placeholder(self, task_id: str) -> dict | None:
        """The candidate's record on ``task_id`` where it has none to train: ``no_candidate`` (no ``model``)
        or ``in_roster`` (a roster model without ``model_args``: the report uses its roster cell); None
        where the candidate trains."""
        model = self.candidate.model
        if model is None:
            return {"status": "no_candidate", "task": task_id}
        if model in self.models and not self.candidate.args:
            return {"status": "in_roster", "task": task_id, "model": model}
        return None

    def cells(self, tasks=None) -> list[tuple[str, str, str, dict | None]]:
        """``(task, model, role, model_args)`` of every cell ``dvc repro`` trains for ``tasks`` (default:
        ``tasks``): each task x roster model, and the candidate on every task unless it is a plain roster
        model."""
        tasks = list(tasks or self.tasks)
        cells = [(t, m, "roster", None) for t in tasks for m in self.models]
        cells += [(t, self.candidate.model, "candidate", thaw(self.candidate.args)) for t in tasks
                  if self.candidate_placeholder(t) is None]
        return cells


#: blocks (and keys inside blocks) :meth:`Settings.replace` sets as given rather than merging
_WHOLE = {"protocol_overrides", "model_args", "custom_tasks"}
_WHOLE_IN = {"train": ("epochs", "model_config"), "search": ("space",), "report": ("weights",)}
