"""Reading and validating ``params.yaml``.

Everything that can change a result lives in ``tasks``, ``models``,
``model``/``model_args``, ``seeds`` and ``train``; ``exec`` says how to run
and never changes a result; ``report`` and ``data`` configure the report and
the fetch stages. Bad values are rejected here, with the key, the value and
the valid choices, before any training starts. Names (tasks, models) are
checked against the catalogue and the registry by :mod:`netzbench.config`.
This module imports neither torch nor the rest of the package.
"""

from __future__ import annotations

import copy
import difflib
import math
import os
import re
from pathlib import Path
from typing import Any

from .errors import ParamsError
from .families import TASK_TYPES
from .params_file import read_yaml
from .protocol import BY_NAME as SWITCHES
from .protocol import PROTOCOLS

FAMILIES = tuple(sorted(TASK_TYPES))
#: the structure controls ``netzbench controls`` trains on (:mod:`netzbench.catalog.controls` builds them)
CONTROL_KINDS = ("no_edges", "rewired", "random_graph")

DEFAULTS: dict[str, Any] = {
    "tasks": [],
    "models": [],
    "model": None,
    "model_args": {},
    "seeds": list(range(10)),
    "protocol": "strict",
    "protocol_overrides": {},
    "custom_tasks": {},
    "train": {
        "hidden_channels": 64,
        "param_budget": None,
        "node_split": "public",
        "eval_every": 1,
        "sampling": {"mode": "auto", "min_edges": 4_000_000, "fanouts": [15, 10], "batch_size": 1024, "eval": "layerwise"},
        "parallel_edges": "fused",
        "node_cls": {"lr": 0.01, "weight_decay": 5e-4},
        "graph_cls": {"lr": 0.001, "weight_decay": 0.0},
        "graph_reg": {"lr": 0.001, "weight_decay": 0.0},
        "link_pred": {"lr": 0.01, "weight_decay": 0.0},
        "model_config": {},
        "epochs": {},
    },
    "search": {"space": {}, "method": "grid", "n": None, "seed": 0},
    "exec": {"workers": None, "device": "auto", "threads": 1, "timeout_s": None, "max_rss_gb": None,
             "executor": "local", "ray_address": None, "arithmetic": "portable", "warm_s": 60},
    "data": {"mirror": None, "on_missing": "skip"},
    "controls": {"tasks": [], "models": None, "kinds": list(CONTROL_KINDS)},
    "seed_plan": {"target_effect": None, "looks": [3, 5, 10, 20], "alpha": None},
    "report": {
        "alpha": 0.05,
        "ci": 0.95,
        "ci_method": "t",
        "bootstrap_n": 10000,
        "pairwise_method": "t",
        "epoch_selection": "final",
        "aggregation": "uniform",
        "equivalence_margin": 0.01,
        "rank_tasks": None,
        "rank_exclude": [],
        "weights": None,
        "posthoc": "nemenyi",
        "baselines": "separate",
    },
}

#: mappings whose keys are names the user chooses (checked against the catalogue, the registry or the
#: switches elsewhere), not fixed option names: their keys are not checked against ``DEFAULTS``
_FREE_KEYS = {("custom_tasks",), ("model_args",), ("protocol_overrides",), ("train", "model_config"),
              ("train", "epochs"), ("search", "space"), ("report", "weights")}

CI_METHODS = ("t", "bootstrap")
PAIRWISE_METHODS = ("t", "wilcoxon")
EPOCH_SELECTIONS = ("final", "best_val")
AGGREGATIONS = ("uniform", "reliability", "hierarchical", "custom")
POSTHOC_METHODS = ("nemenyi", "wilcoxon_holm")
BASELINE_MODES = ("separate", "include")
NODE_SPLITS = ("public", "random")
#: ``train.parallel_edges``: how attention layers pass messages over a knowledge graph's parallel edges
PARALLEL_EDGES = ("fused", "per_edge")
#: ``train.sampling``'s modes and evaluations (training/planning.py holds the same tuples: params may not import
#: training, a higher layer; tests/test_planning.py checks they agree)
SAMPLING_MODES, SAMPLING_EVALS = ("auto", "full", "neighbour"), ("full", "layerwise", "sampled")
ON_MISSING = ("skip", "fail")
DEVICES = ("auto", "cpu", "cuda")
EXECUTORS = ("local", "ray", "inprocess")
ARITHMETIC = ("native", "portable")
#: hyperparameters the inner search may vary
SEARCHABLE = ("lr", "weight_decay", "hidden_channels")

__all__ = ["DEFAULTS", "ParamsError", "check_name", "load_params", "merge", "read_yaml", "unsafe_name", "validate"]


#: the largest seed: a signed 64-bit integer (what torch.manual_seed, numpy and the seeded streams all accept)
MAX_SEED = 2**63 - 1
#: the most seeds a look of the seed rounds may ask for (:data:`netzbench.stats.power.MAX_SEEDS`, tested equal)
MAX_LOOK = 10_000
#: a task id or model name becomes a file or folder name (data/<task>/, metrics/runs/<task>/<model>.json): a
#: plain name, never '', '.', '..', a separator or a NUL, never hidden (fetch stages in data/.<task>.partial)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
#: a model given as an importable class, 'package.module:ClassName'
MODEL_REF = re.compile(f"{_IDENTIFIER}:{_IDENTIFIER}")

def merge(base: dict, override: dict) -> dict:
    """``base`` with ``override`` merged in, nested mappings key by key (copies, never aliases)."""
    out = copy.deepcopy(base)
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def closest(name: str, choices) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices`` to a misspelt ``name``, else ``''``."""
    match = difflib.get_close_matches(str(name), [str(c) for c in choices], n=1, cutoff=0.5)
    return f" (did you mean {match[0]!r}?)" if match else ""


def check_keys(raw: Any, spec: dict = DEFAULTS, where: tuple[str, ...] = (), source: str = "params.yaml") -> None:
    """Raise :class:`ParamsError` for the first key of ``raw`` that ``spec`` (``DEFAULTS``) does not know,
    at any nesting level, naming the key's full path and the closest valid name."""
    if not isinstance(raw, dict):
        return
    for key, value in raw.items():
        path = (*where, str(key))
        if key not in spec:
            known = sorted(spec)
            raise ParamsError(f"{source}: unknown key `{'.'.join(path)}`{closest(key, known)}; "
                              f"valid keys{' under `' + '.'.join(where) + '`' if where else ''}: {known}")
        if isinstance(spec[key], dict) and path not in _FREE_KEYS:
            check_keys(value, spec[key], path, source)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """A finite int or float: NaN passes every ``<``/``>`` range check unnoticed (``timeout_s: .nan`` would
    turn the timeout off, ``lr: .nan`` fail only after training) and an int beyond float range overflows."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def unsafe_name(name: Any, *, model: bool = False) -> str | None:
    """Why ``name`` cannot be a task id (with ``model``: a model name), or None when it can.

    Ids and model names become folder and file names, so only plain names pass (:data:`NAME`; a
    model also as 'package.module:ClassName'): never a path that would make fetch replace, or train
    write, anything outside ``data/`` or ``metrics/``."""
    if not isinstance(name, str):
        kind = "null" if name is None else "a boolean" if isinstance(name, bool) else (
            "a number" if isinstance(name, (int, float)) else f"a {type(name).__name__}")
        return f"is {kind}, not a name (YAML reads an unquoted 123, 1.5, true or null so): quote it"
    if (NAME.fullmatch(name) and ".." not in name) or (model and len(name) <= 200 and MODEL_REF.fullmatch(name)):
        return None
    return ("is not a plain name: it becomes a file or folder name, so it must be 1 to 100 letters, digits, '_', "
            "'.' or '-', starting with a letter or digit, without '..'" + (", or 'package.module:ClassName'"
                                                                           if model else ""))


def check_name(name: Any, what: str, *, model: bool = False, source: str = "params.yaml") -> Any:
    """``name``, or :class:`ParamsError` naming ``what`` (e.g. "`tasks` entry") and the name."""
    why = unsafe_name(name, model=model)
    if why:
        raise ParamsError(f"{source}: {what} {name!r} {why}")
    return name


def _check_str_list(params: dict, key: str) -> None:
    value = params[key]
    if not isinstance(value, list) or not value:
        raise ParamsError(f"params.yaml: `{key}` must be a non-empty list of names, got {value!r}")
    for v in value:
        check_name(v, f"`{key}` entry", model=key == "models")
    dupes = sorted({v for v in value if value.count(v) > 1})
    if dupes:
        raise ParamsError(f"params.yaml: `{key}` lists {dupes} more than once")


#: option sections that may be null, meaning "nothing set" (the defaults, or no entries); null for any
#: other section is an error, not a silent reset
_NULL_IS_DEFAULT = _FREE_KEYS | {("search",)}


def _check_sections(params: dict, spec: dict = DEFAULTS, where: tuple[str, ...] = ()) -> None:
    """Raise :class:`ParamsError` for a section (a mapping of ``DEFAULTS``) given as anything but a mapping;
    a null where :data:`_NULL_IS_DEFAULT` allows it becomes the default."""
    for key, default in spec.items():
        if not isinstance(default, dict):
            continue
        path, value = (*where, key), params.get(key)
        if value is None and path in _NULL_IS_DEFAULT:
            params[key] = copy.deepcopy(default)
        elif not isinstance(value, dict):
            got = "null (leave the key out for the defaults)" if value is None else repr(value)
            raise ParamsError(f"params.yaml: `{'.'.join(path)}` must be a mapping, got {got}")
        elif path not in _FREE_KEYS:
            _check_sections(value, default, path)


def validate_sampling(block: dict) -> None:
    """``train.sampling``: mode, eval, a threshold >= 0, fanouts (one per hop, each >= 1), a batch size >= 1."""
    for key, choices in (("mode", SAMPLING_MODES), ("eval", SAMPLING_EVALS)):
        if block.get(key) not in choices:
            raise ParamsError(f"params.yaml: `train.sampling.{key}` must be one of {list(choices)}, "
                              f"got {block.get(key)!r}{closest(block.get(key), choices)}")
    if not _is_int(block.get("min_edges")) or block["min_edges"] < 0:
        raise ParamsError("params.yaml: `train.sampling.min_edges` must be an integer >= 0 (message-passing edges "
                          f"at which mode auto samples), got {block.get('min_edges')!r}")
    fanouts = block.get("fanouts")
    if not isinstance(fanouts, list) or not fanouts or not all(_is_int(f) and f >= 1 for f in fanouts):
        raise ParamsError("params.yaml: `train.sampling.fanouts` must be a non-empty list of integers >= 1 "
                          f"(neighbours per node, one per hop), got {fanouts!r}")
    if not _is_int(block.get("batch_size")) or block["batch_size"] < 1:
        raise ParamsError(f"params.yaml: `train.sampling.batch_size` must be an integer >= 1, got "
                          f"{block.get('batch_size')!r}")


def validate(params: dict) -> dict:
    """Check every value's type and range; return ``params`` (defaults merged)."""
    _check_sections(params)
    for tid in params["custom_tasks"]:
        check_name(tid, "`custom_tasks` id")
    _check_str_list(params, "tasks")
    _check_str_list(params, "models")

    seeds = params["seeds"]
    if not isinstance(seeds, list) or not seeds:
        raise ParamsError(f"params.yaml: `seeds` must be a non-empty list of integers, got {seeds!r}")
    if not all(_is_int(s) and 0 <= s <= MAX_SEED for s in seeds):
        raise ParamsError(f"params.yaml: `seeds` must be integers from 0 to 2**63 - 1 (every RNG takes a 64-bit "
                          f"seed), got {seeds!r}")
    if len(set(seeds)) != len(seeds):
        raise ParamsError(f"params.yaml: `seeds` has duplicates: {seeds!r}")

    _check_protocol(params)
    model = params["model"]
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ParamsError("params.yaml: `model` must be null, a roster name (e.g. GAT) or "
                          f"'package.module:ClassName', got {model!r}")
    if model is not None:
        check_name(model, "`model`", model=True)
    # model_args: null in params.yaml (so `-S 'model_args={...}'` can replace it) is {} (_check_sections)

    train = params["train"]
    hidden = train["hidden_channels"]
    if not _is_int(hidden) or hidden <= 0:
        raise ParamsError(f"params.yaml: `train.hidden_channels` must be a positive integer, got {hidden!r}")
    budget = train.get("param_budget")
    if budget is not None and (not _is_int(budget) or budget <= 0):
        raise ParamsError(f"params.yaml: `train.param_budget` must be null (width = train.hidden_channels) or a "
                          f"positive integer (parameters per model), got {budget!r}")
    if train.get("node_split") not in NODE_SPLITS:
        raise ParamsError(f"params.yaml: `train.node_split` must be one of {list(NODE_SPLITS)}, "
                          f"got {train.get('node_split')!r}{closest(train.get('node_split'), NODE_SPLITS)}")
    eval_every = train["eval_every"]
    if not _is_int(eval_every) or eval_every <= 0:
        raise ParamsError(f"params.yaml: `train.eval_every` must be a positive integer, got {eval_every!r}")
    validate_sampling(train["sampling"])
    if train.get("parallel_edges") not in PARALLEL_EDGES:
        raise ParamsError(f"params.yaml: `train.parallel_edges` must be one of {list(PARALLEL_EDGES)}, "
                          f"got {train.get('parallel_edges')!r}{closest(train.get('parallel_edges'), PARALLEL_EDGES)}")
    for family in FAMILIES:
        opt = train[family]
        lr = opt.get("lr")
        if not _is_number(lr) or lr <= 0:
            raise ParamsError(f"params.yaml: `train.{family}.lr` must be a number > 0, got {lr!r}")
        wd = opt.get("weight_decay", 0.0)
        if not _is_number(wd) or wd < 0:
            raise ParamsError(f"params.yaml: `train.{family}.weight_decay` must be a number >= 0, got {wd!r}")
    mc = train["model_config"]
    if not all(isinstance(v, dict) for v in mc.values()):
        raise ParamsError(
            f"params.yaml: `train.model_config` must map model names to keyword mappings, got {mc!r}"
        )
    # overrides: a task without an entry trains its catalogue budget (recorded in data/<task>/meta.json)
    for task, n in train["epochs"].items():
        if not _is_int(n) or n <= 0:
            raise ParamsError(f"params.yaml: `train.epochs.{task}` must be a positive integer, got {n!r}")

    validate_search(params["search"])
    if budget is not None and "hidden_channels" in (params["search"].get("space") or {}):
        raise ParamsError("params.yaml: `train.param_budget` chooses each model's hidden width; it cannot be "
                          "combined with `search.space.hidden_channels` (drop one of them)")

    ex = params["exec"]
    workers = ex.get("workers")
    if workers is not None and (not _is_int(workers) or workers < 1):
        raise ParamsError(f"params.yaml: `exec.workers` must be null (one per core) or >= 1, got {workers!r}")
    threads = ex.get("threads")
    if not _is_int(threads) or threads < 1:
        raise ParamsError(f"params.yaml: `exec.threads` must be an integer >= 1, got {threads!r}")
    for key in ("timeout_s", "max_rss_gb"):
        v = ex.get(key)
        if v is not None and (not _is_number(v) or v <= 0):
            raise ParamsError(f"params.yaml: `exec.{key}` must be null (no limit) or a number > 0, got {v!r}")
    warm = ex.get("warm_s")
    if not _is_number(warm) or warm < 0:
        raise ParamsError(f"params.yaml: `exec.warm_s` must be a number of seconds >= 0 (0: no warm server), got {warm!r}")
    if ex.get("executor") not in EXECUTORS:
        raise ParamsError(f"params.yaml: `exec.executor` must be one of {list(EXECUTORS)}, got {ex.get('executor')!r}")
    if ex.get("arithmetic") not in ARITHMETIC:
        raise ParamsError(f"params.yaml: `exec.arithmetic` must be one of {list(ARITHMETIC)}, got {ex.get('arithmetic')!r}")
    if ex.get("device") not in DEVICES:
        raise ParamsError(f"params.yaml: `exec.device` must be one of {list(DEVICES)}, got {ex.get('device')!r}")
    data = params["data"]
    for key, v in (("exec.ray_address", ex.get("ray_address")), ("data.mirror", data.get("mirror"))):
        if v is not None and not isinstance(v, (str, os.PathLike)):  # run_benchmark(mirror=Path(...))
            raise ParamsError(f"params.yaml: `{key}` must be null or a string, got {v!r}")
    if data.get("on_missing") not in ON_MISSING:
        raise ParamsError(f"params.yaml: `data.on_missing` must be one of {list(ON_MISSING)}, got {data.get('on_missing')!r}")

    validate_questions(params)

    rep = params["report"]
    for key, choices in (("ci_method", CI_METHODS), ("pairwise_method", PAIRWISE_METHODS),
                         ("epoch_selection", EPOCH_SELECTIONS), ("aggregation", AGGREGATIONS),
                         ("posthoc", POSTHOC_METHODS), ("baselines", BASELINE_MODES)):
        if rep.get(key) not in choices:
            raise ParamsError(f"params.yaml: `report.{key}` must be one of {list(choices)}, got {rep.get(key)!r}")
    for key in ("alpha", "ci"):
        v = rep.get(key)
        if not _is_number(v) or not 0 < v < 1:
            raise ParamsError(f"params.yaml: `report.{key}` must be in (0, 1), got {v!r}")
    if not _is_int(rep.get("bootstrap_n")) or rep["bootstrap_n"] < 100:
        raise ParamsError(f"params.yaml: `report.bootstrap_n` must be an integer >= 100, got {rep.get('bootstrap_n')!r}")
    rank_tasks = rep.get("rank_tasks")
    if rank_tasks is not None and (not isinstance(rank_tasks, list) or not rank_tasks
                                   or not all(isinstance(t, str) for t in rank_tasks)):
        raise ParamsError(f"params.yaml: `report.rank_tasks` must be null or a non-empty list, got {rank_tasks!r}")
    if rep.get("rank_exclude") is None:
        rep["rank_exclude"] = []
    if not isinstance(rep["rank_exclude"], list) or not all(isinstance(t, str) for t in rep["rank_exclude"]):
        raise ParamsError(f"params.yaml: `report.rank_exclude` must be a list of task ids, got {rep['rank_exclude']!r}")
    if rank_tasks is not None and rep["rank_exclude"]:
        raise ParamsError("params.yaml: give `report.rank_tasks` (the tasks to rank) or `report.rank_exclude` "
                          "(the tasks not to rank), not both")
    weights = rep.get("weights")
    if weights is not None and (not isinstance(weights, dict)
                                or not all(_is_number(w) and w >= 0 for w in weights.values())):
        raise ParamsError(f"params.yaml: `report.weights` must map task ids to numbers >= 0, got {weights!r}")
    margin = rep.get("equivalence_margin")
    if not _is_number(margin) or margin <= 0:
        raise ParamsError(f"params.yaml: `report.equivalence_margin` must be > 0, got {margin!r}")
    return params


def validation_is_reported(switches: dict, family: str, split: str) -> bool:
    """Whether a task of ``family`` with the task-spec ``split`` reports its validation set under the resolved
    protocol ``switches``: ``graph_split: 80_20`` cuts one 20 % that is both (a dataset's own split is kept),
    so whatever selects on validation -- ``report.epoch_selection: best_val``, a search -- selects on the test set."""
    return family in ("graph_cls", "graph_reg") and split != "dataset_split" and switches.get("graph_split") == "80_20"


def _check_protocol(params: dict) -> None:
    if params["protocol"] not in PROTOCOLS:
        raise ParamsError(f"params.yaml: `protocol` must be one of {list(PROTOCOLS)}, got {params['protocol']!r}")
    overrides = params.get("protocol_overrides")
    if overrides is None:
        params["protocol_overrides"] = overrides = {}
    if not isinstance(overrides, dict):
        raise ParamsError(f"params.yaml: `protocol_overrides` must map switch names to values, got {overrides!r}")
    for name, value in overrides.items():
        if name not in SWITCHES:
            raise ParamsError(f"params.yaml: `protocol_overrides` names an unknown switch {name!r}; "
                              f"switches: {sorted(SWITCHES)}")
        if not isinstance(value, str) or value not in SWITCHES[name].choices:
            raise ParamsError(f"params.yaml: `protocol_overrides.{name}` must be one of "
                              f"{list(SWITCHES[name].choices)}, got {value!r}")


def load_params(path: str | os.PathLike | None = None) -> dict:
    """Load ``params.yaml`` (default: the one in the current directory), merge defaults, validate."""
    path = Path(path or "params.yaml")
    if not path.is_file():
        raise ParamsError(f"{path} not found: run from the repository root (where params.yaml lives)")
    raw = read_yaml(path) or {}
    if not isinstance(raw, dict):
        raise ParamsError(f"{path}: expected a mapping at the top level")
    try:
        check_keys(raw, source=str(path))
        return validate(merge(DEFAULTS, raw))
    except ParamsError as exc:  # the checks name params.yaml; say which file it was
        message = str(exc)
        if message.startswith("params.yaml:") and str(path) != "params.yaml":
            message = f"{path}:" + message[len("params.yaml:"):]
        raise ParamsError(message + undo_hint(path)) from None


def undo_hint(path: str | os.PathLike) -> str:
    """How to get a working params.yaml back: ``dvc exp run -S`` writes its values into the file before
    any stage runs and leaves them there when a stage refuses them."""
    if Path(path).name != "params.yaml":
        return ""
    return " (if `dvc exp run -S` wrote it there, `git checkout -- params.yaml` brings back the committed file)"


def validate_search(search: dict) -> None:
    """Raise :class:`ParamsError` naming the problem in a ``search`` block."""
    space = search.get("space") or {}
    if not isinstance(space, dict):
        raise ParamsError(f"params.yaml: `search.space` must be a mapping, got {space!r}")
    unknown = sorted(set(space) - set(SEARCHABLE))
    if unknown:
        raise ParamsError(f"params.yaml: `search.space` has unknown keys {unknown}; searchable: {list(SEARCHABLE)}")
    for key, values in space.items():
        if not isinstance(values, list) or not values:
            raise ParamsError(f"params.yaml: `search.space.{key}` must be a non-empty list, got {values!r}")
        for v in values:
            ok = (_is_number(v) and (v > 0 if key != "weight_decay" else v >= 0)
                  and (_is_int(v) if key == "hidden_channels" else True))
            if not ok:
                raise ParamsError(f"params.yaml: `search.space.{key}` has an invalid value {v!r}")
    seed = search.get("seed", 0)
    if not _is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise ParamsError(f"params.yaml: `search.seed` must be an integer from 0 to 2**63 - 1, got {seed!r}")
    method = search.get("method", "grid")
    if method not in ("grid", "random"):
        raise ParamsError(f"params.yaml: `search.method` must be one of ['grid', 'random'], got {method!r}")
    if method == "random" and space:
        n = search.get("n")
        if not _is_int(n) or n < 1:
            raise ParamsError(f"params.yaml: `search.n` must be a positive integer for random search, got {n!r}")


def validate_questions(params: dict) -> None:
    """Check the ``controls`` block (``netzbench controls``) and the ``seed_plan`` block (``netzbench seeds``)."""
    controls = params["controls"]
    tasks, models, kinds = controls.get("tasks"), controls.get("models"), controls.get("kinds")
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
        raise ParamsError(f"params.yaml: `controls.tasks` must be a list of task ids, got {tasks!r}")
    for t in tasks:
        check_name(t, "`controls.tasks` entry")
    if models is not None and (not isinstance(models, list) or not models
                               or not all(isinstance(m, str) for m in models)):
        raise ParamsError(f"params.yaml: `controls.models` must be null (the roster) or a non-empty list of "
                          f"model names, got {models!r}")
    if (not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) for k in kinds)
            or len(set(kinds)) != len(kinds) or not set(kinds) <= set(CONTROL_KINDS)):
        raise ParamsError(f"params.yaml: `controls.kinds` must be a non-empty list of distinct controls from "
                          f"{list(CONTROL_KINDS)}, got {kinds!r}")
    plan = params["seed_plan"]
    effect, looks, alpha = plan.get("target_effect"), plan.get("looks"), plan.get("alpha")
    if effect is not None and (not _is_number(effect) or effect <= 0):
        raise ParamsError(f"params.yaml: `seed_plan.target_effect` must be null (give --target-effect) or a "
                          f"number > 0 in metric units, got {effect!r}")
    check_looks(looks, "params.yaml: `seed_plan.looks`")
    if alpha is not None and (not _is_number(alpha) or not 0 < alpha < 1):
        raise ParamsError(f"params.yaml: `seed_plan.alpha` must be null (report.alpha) or in (0, 1), got {alpha!r}")


def check_looks(looks: Any, what: str) -> list[int]:
    """``looks`` (seed counts at which the seed rounds decide) as a list; :class:`ParamsError` unless they are
    integers of at least 2, strictly increasing (the last is the cap)."""
    if (not isinstance(looks, list) or not looks or not all(_is_int(n) for n in looks) or looks[0] < 2
            or any(b <= a for a, b in zip(looks, looks[1:]))):
        raise ParamsError(f"{what} must be increasing seed counts of at least 2 (the last is the cap), got {looks!r}")
    if looks[-1] > MAX_LOOK:
        raise ParamsError(f"{what}: a cap of {looks[-1]} seeds is more than {MAX_LOOK:,} (the most the power "
                          "analysis covers)")
    return list(looks)
