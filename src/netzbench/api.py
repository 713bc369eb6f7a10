"""The Python entry point: ``run_benchmark(...) -> BenchmarkReport``.

For notebooks and scripts. It is not a second orchestrator: it builds a
``params`` dict (validated like ``params.yaml``), brings every task's data
into the processed layout, and runs the same plan -> executor -> run record
path as the pipeline's stages (:mod:`netzbench.run`), with the same
per-seed cache; the report is built from the run records, as the report
stage builds it.

Tasks come from the catalogue (``category``, ``task_type``, ``only``), from
explicit :class:`Task` objects (``tasks=``), or both. Models are a mapping
``name -> spec`` where a spec is a class, a roster name or
``"module:Class"`` string, or an inline tuple ``(cls, task_types[, factory])``.
Models named by reference run on any executor and are cached; models given
as objects run in this process and are never cached (their code cannot be
hashed).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .catalog.table import CATEGORIES, DATASETS, TASKS
from .console import console
from .families import TASK_TYPES

DEFAULT_MODELS = ("GCN", "GAT", "GIN", "GraphSAGE", "GraphTransformer")


@dataclass
class Task:
    """A benchmark task: a name, a family, a loader and an epoch budget.

    ``loader(root)`` (or ``loader(root, *, seed)`` for seed-aware generators:
    the benchmark seed is then threaded into the loader) returns a PyG
    ``Data``, a sequence of ``Data`` or a processed arrays dict (see
    :mod:`netzbench.graphs.convert` for the conventions per family).
    ``root`` is ``<data_root>/<name>``, a folder the loader may read its own
    files from; netzbench never writes or deletes it. ``catalog_id`` marks a
    task of the built-in catalogue. ``missing`` (classification only): the
    label value, or a list of them, that means "no label" (e.g. ``9``): those
    nodes or graphs get no class and stay out of the splits, and the other
    labels become classes ``0..C-1`` (the original values kept in
    ``meta.json``'s ``label_mapping`` and shown in the dataset card).
    """

    name: str
    task_type: str
    loader: Callable | None = None
    epochs: int = 100
    category: str | None = None
    split: str | None = None
    catalog_id: str | None = None
    metadata: dict = field(default_factory=dict)
    missing: Any = None

    def __post_init__(self):
        from .params import unsafe_name

        why = unsafe_name(self.name)  # the name becomes a folder (<data_root>/<name>, the cache's api-data/<name>)
        if why:
            raise ValueError(f"task {self.name!r} {why}")
        if self.task_type not in TASK_TYPES:
            raise ValueError(f"task {self.name!r}: unknown task_type {self.task_type!r}; valid: {sorted(TASK_TYPES)}")
        if self.loader is None and self.catalog_id is None:
            raise ValueError(f"task {self.name!r} needs a loader")
        if not isinstance(self.epochs, int) or isinstance(self.epochs, bool) or self.epochs <= 0:
            raise ValueError(f"task {self.name!r}: epochs must be a positive integer, got {self.epochs!r}")
        if self.missing is not None and self.task_type not in ("node_cls", "graph_cls"):
            raise ValueError(f"task {self.name!r}: `missing` names class labels that mean 'no label': node_cls "
                             f"and graph_cls only, not {self.task_type}")
        if self.missing is not None and self.catalog_id is not None:
            raise ValueError(f"task {self.name!r}: `missing` is for a task with its own loader; a catalogue "
                             "task's labels are the catalogue's")

    @property
    def seed_aware(self) -> bool:
        if self.catalog_id is not None:
            return DATASETS[TASKS[self.catalog_id].dataset].synthetic
        return "seed" in inspect.signature(self.loader).parameters


def task_from_dataset(name: str, task_type: str, dataset, epochs: int = 100, category: str | None = None,
                      split: str | None = None) -> Task:
    """Wrap an already-loaded dataset (PyG ``Data``/dataset or arrays dict) as a :class:`Task`."""
    return Task(name, task_type, lambda _root: dataset, epochs, category, split)


def _catalog_task(task_id: str) -> Task:
    spec = TASKS[task_id]
    return Task(task_id, spec.family, None, spec.epochs, DATASETS[spec.dataset].category, spec.split, task_id)


def _build_registry() -> dict[str, dict[str, list[Task]]]:
    reg: dict[str, dict[str, list[Task]]] = {c: {} for c in CATEGORIES}
    for tid in sorted(TASKS):
        t = _catalog_task(tid)
        reg.setdefault(t.category, {}).setdefault(t.task_type, []).append(t)
    return reg


#: ``BENCHMARK_TASKS[category][task_type]`` -> list of tasks (catalogue + registered ones)
BENCHMARK_TASKS: dict[str, dict[str, list[Task]]] = _build_registry()


def register_task(category: str, task: Task) -> None:
    """Add ``task`` to ``BENCHMARK_TASKS[category]`` (pair with :func:`unregister_task` in tests)."""
    bucket = BENCHMARK_TASKS.setdefault(category, {}).setdefault(task.task_type, [])
    if any(t.name == task.name for t in bucket):
        raise ValueError(f"task {task.name!r} is already registered in {category!r}")
    task.category = task.category or category
    bucket.append(task)


def unregister_task(category: str, name: str) -> None:
    """Remove a task registered with :func:`register_task` (no error if absent)."""
    for tasks in BENCHMARK_TASKS.get(category, {}).values():
        tasks[:] = [t for t in tasks if t.name != name]


def iter_benchmark_tasks(category: str | None = None, task_type: str | None = None,
                         only: Iterable[str] | None = None) -> Iterator[Task]:
    """Tasks of a category (all categories when None), optionally one family and a name filter."""
    if category is not None and category not in BENCHMARK_TASKS:
        raise ValueError(f"unknown category {category!r}; categories: {sorted(BENCHMARK_TASKS)}")
    if task_type is not None and task_type not in TASK_TYPES:
        raise ValueError(f"unknown task_type {task_type!r}; valid: {sorted(TASK_TYPES)}")
    only = set(only) if only is not None else None
    for cat in ([category] if category else list(BENCHMARK_TASKS)):
        for fam, tasks in BENCHMARK_TASKS[cat].items():
            if task_type is not None and fam != task_type:
                continue
            for t in tasks:
                if only is None or t.name in only:
                    yield t


def _model_spec(name: str, spec: Any):
    """``(model reference or None, ModelSpec or None)``: a reference for models named by string,
    a spec object for models given as classes or tuples (they run in this process only)."""
    from .models.registry import MODEL_REGISTRY, ModelSpec, resolve_model, spec_from_class

    if isinstance(spec, str):
        resolve_model(spec)  # fail now, with the valid choices, for an unknown name
        return spec, None
    if isinstance(spec, ModelSpec):
        return None, spec
    if isinstance(spec, tuple):
        if len(spec) not in (2, 3):
            raise ValueError(f"model {name!r}: an inline tuple is (cls, task_types[, factory])")
        factory = spec[2] if len(spec) == 3 else None
        return None, spec_from_class(name, spec[0], task_types=spec[1], factory=factory)
    for reg in MODEL_REGISTRY.values():
        if reg.cls is spec:
            return None, ModelSpec(name, reg.ref, reg.task_types, spec, reg.factory, {}, reg.node_encoder)
    return None, spec_from_class(name, spec)


def _meta(task_dir: Path) -> dict:
    """``task_dir/meta.json``, or ``{}`` when there is none."""
    import json

    path = task_dir / "meta.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _task_dir(task: Task, seeds: list[int], data_root: Path, settings) -> Path:
    """The processed data of ``task``: the catalogue's ``data_root/<id>`` (fetched when missing),
    or, for a task with its own loader, a folder under the cache written from the loader."""
    from .catalog.data import fetch_task, write_loader_task
    from .paths import cache_root, child

    if task.catalog_id is not None:
        task_dir = child(data_root, task.catalog_id)
        if "epochs" not in _meta(task_dir):  # never fetched, or by an older netzbench (no budget recorded)
            fetch_task(task.catalog_id, settings, data_root)
        return task_dir
    out = child(cache_root() / "api-data", task.name)  # replaced as a whole: never a path outside api-data/
    write_loader_task(out, task.name, task.task_type, task.loader, root=data_root / task.name,
                      seeds=seeds if task.seed_aware else None, split=task.split, category=task.category,
                      epochs=task.epochs, missing=task.missing)
    return out


#: run_benchmark's arguments and the params.yaml key each sets: the API's one table, from which its params
#: are built and by which an error about a key names the argument (``lr`` sets ``train.<family>``)
PARAMS_OF = {"tasks": "tasks", "models": "models", "seeds": "seeds", "epochs": "train.epochs",
             "hidden_channels": "train.hidden_channels", "param_budget": "train.param_budget",
             "node_split": "train.node_split", "sampling": "train.sampling", "search": "search",
             "mirror": "data.mirror", "protocol_overrides": "protocol_overrides", "protocol": "protocol",
             "threads": "exec.threads", "workers": "exec.workers", "executor": "exec.executor",
             "arithmetic": "exec.arithmetic", "lr": "train."}


def _params_of(arguments: dict) -> dict:
    """The params.yaml document the ``arguments`` (argument name -> value) of run_benchmark make."""
    out: dict = {}
    for name, value in arguments.items():
        *blocks, key = PARAMS_OF[name].split(".")
        node = out
        for block in blocks:
            node = node.setdefault(block, {})
        if name == "lr":
            node.update(_optimisers(value))
        else:
            node[key] = value
    return out


def _optimisers(lr) -> dict:
    """``lr`` (family -> ``(lr, weight_decay)``) as ``params.yaml``'s ``train.<family>`` blocks."""
    if lr is None:
        return {}
    if not isinstance(lr, dict):
        raise ValueError(f"run_benchmark: `lr` must map a family ({sorted(TASK_TYPES)}) to (lr, weight_decay), "
                         f"got {lr!r}")
    out = {}
    for family, value in lr.items():
        if family not in TASK_TYPES:
            raise ValueError(f"run_benchmark: `lr` names an unknown family {family!r}; families: {sorted(TASK_TYPES)}")
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            raise ValueError(f"run_benchmark: `lr[{family!r}]` must be a pair (lr, weight_decay), got {value!r}")
        out[family] = {"lr": value[0], "weight_decay": value[1]}
    return out


def _validated(params: dict) -> dict:
    """``params`` through the same validator as ``params.yaml``; errors name the argument."""
    from .params import ParamsError, validate

    try:
        return validate(params)
    except ParamsError as exc:
        msg = str(exc).removeprefix("params.yaml: ")
        arg = next((a for a, key in PARAMS_OF.items() if f"`{key}" in msg), None)
        raise ParamsError(f"run_benchmark{f' argument `{arg}`' if arg else ''}: {msg}") from None


@console(unless_configured=True)  # prints what the command line prints, on stderr, unless logging is configured
def run_benchmark(category: str | None = None, models: dict | None = None, seeds: Iterable[int] = range(10),
                  tasks: Iterable[Task | str] | None = None, task_type: str | None = None,
                  only: Iterable[str] | None = None, epochs: int | dict[str, int] | None = None,
                  search: dict | None = None, *, hidden_channels: int = 64, lr: dict | None = None,
                  param_budget: int | None = None, node_split: str = "public", sampling: dict | None = None,
                  data_root: str | Path = "data", mirror: str | None = None, threads: int = 1,
                  executor: str = "inprocess", workers: int | None = None, progress: bool = True,
                  arithmetic: str = "native",
                  protocol: str = "strict", protocol_overrides: dict | None = None, **report_options):
    """Train every compatible (task, model, seed) and return a ``BenchmarkReport``.

    ``epochs`` overrides every task's budget (an int) or some of them (a
    mapping task -> int). ``lr`` maps a family to ``(lr, weight_decay)``.
    ``param_budget``, ``node_split`` and ``sampling`` (keys of the block to change, e.g.
    ``{"mode": "neighbour"}``) are ``train.param_budget``, ``train.node_split`` and
    ``train.sampling`` of ``params.yaml``.
    ``search`` is a ``params.yaml``-style search block; ``protocol`` and
    ``protocol_overrides`` as in ``params.yaml`` (:mod:`netzbench.protocol`). ``executor`` is
    ``inprocess`` (default), ``local`` (worker processes) or ``ray``; models
    given as objects always run in this process. Incompatible pairs produce
    no cell; a failing seed is recorded as failed and the run goes on.
    Finished seeds of models named by reference come from (and go to) the
    per-seed cache.

    What it says (a fetched task's notes and warnings) is logged under the
    ``netzbench`` logger and, while it runs, printed on stderr as the command
    line prints it, unless the program has configured logging (a handler on
    the root or ``netzbench`` logger): then its handlers decide.
    """
    from .params import DEFAULTS, merge
    from .report import BenchmarkReport
    from .report.runs import report_from_records
    from .run.execute import run_plans
    from .run.plan import plan_cell

    seeds = [int(s) for s in seeds]
    if tasks is None and category is None and only is None:
        raise ValueError("run_benchmark needs a category, tasks= or only=")
    task_list: list[Task] = [_catalog_task(t) if isinstance(t, str) else t for t in (tasks or [])]
    if task_type is not None:
        task_list = [t for t in task_list if t.task_type == task_type]
    if category is not None or (tasks is None and only is not None):
        task_list += [t for t in iter_benchmark_tasks(category, task_type, only) if t not in task_list]
    if not task_list:
        raise ValueError("no task matches the selection")
    model_map = dict(models) if models is not None else {m: m for m in DEFAULT_MODELS}
    resolved = {name: _model_spec(name, spec) for name, spec in model_map.items()}
    # train.epochs holds overrides only, as in params.yaml: a task's own budget reaches training through
    # its meta.json (and the run record says which of the two it trained)
    overrides = {}
    for t in task_list:
        given = epochs.get(t.name) if isinstance(epochs, dict) else epochs
        if given is None and t.catalog_id is not None and t.epochs != TASKS[t.catalog_id].epochs:
            given = t.epochs  # a catalogue task given another budget
        if given is not None:
            overrides[t.name] = given
    in_memory = any(spec is not None for _, spec in resolved.values())
    params = _validated(merge(DEFAULTS, _params_of({
        "tasks": [t.name for t in task_list], "models": list(resolved), "seeds": seeds, "epochs": overrides,
        "hidden_channels": hidden_channels, "param_budget": param_budget, "node_split": node_split,
        "sampling": sampling or {}, "lr": lr, "search": search, "mirror": mirror, "protocol": protocol,
        "protocol_overrides": protocol_overrides or {}, "threads": threads, "workers": workers,
        "executor": "inprocess" if in_memory else executor, "arithmetic": arithmetic})))
    from .run.arithmetic import check, configure
    from .settings import Settings

    settings = Settings.from_params(params)  # the API's one reading of its arguments
    configure(settings.execution.arithmetic)
    if settings.execution.executor == "inprocess":
        check(settings.execution.arithmetic)  # this process trains: its torch must already compute so
    data_root = Path(data_root)
    plans = []
    for task in task_list:
        task_dir = _task_dir(task, seeds, data_root, settings)
        for name, (ref, spec) in resolved.items():
            plan = plan_cell(task.name, ref or name, settings, model_args={}, task_dir=task_dir, model_spec=spec,
                             quiet=True)
            if plan.outcome == "incompatible":
                continue  # an unsupported pair produces no cell
            plan.record["model"] = name
            plans.append(plan)
    run_plans(plans, settings, quiet=True, progress=progress, desc="run_benchmark")
    records: dict[str, dict[str, dict]] = {t.name: {} for t in task_list}
    for plan in plans:
        record = plan.finish().to_dict()
        records[record["task"]][record["model"]] = record
    categories = {t.name: t.category for t in task_list}
    blocks = settings.to_params()  # the report's config: the settings' blocks, as from_runs records them
    config = {**{key: blocks[key] for key in ("tasks", "models", "protocol", "protocol_overrides", "train", "search")},
              "source": "run_benchmark"}
    return report_from_records(BenchmarkReport, records, seeds, config=config, categories=categories,
                               **report_options)
