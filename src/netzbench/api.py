"""The Python entry point: ``run_benchmark(...) -> BenchmarkReport``.

For notebooks and scripts. The DVC pipeline is the reproducible path (every
cell a tracked stage, results cached); this API runs the same trainers
in-process and returns the same report object.

Tasks come from the catalogue (``category``, ``task_type``, ``only``), from
explicit :class:`Task` objects (``tasks=``), or both. Models are a mapping
``name -> spec`` where a spec is a class, a roster name or
``"module:Class"`` string, or an inline tuple ``(cls, task_types[, factory])``.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from . import TASK_TYPES
from .catalog.table import CATEGORIES, DATASETS, TASKS

DEFAULT_MODELS = ("GCN", "GAT", "GIN", "GraphSAGE", "GraphTransformer")


@dataclass
class Task:
    """A benchmark task: a name, a family, a loader and an epoch budget.

    ``loader(root)`` (or ``loader(root, *, seed)`` for seed-aware generators:
    the benchmark seed is then threaded into the loader) returns a PyG
    ``Data``, a sequence of ``Data`` or a processed arrays dict (see
    :mod:`netzbench.catalog.convert` for the conventions per family).
    ``catalog_id`` marks a task of the built-in catalogue.
    """

    name: str
    task_type: str
    loader: Callable | None = None
    epochs: int = 100
    category: str | None = None
    split: str | None = None
    catalog_id: str | None = None
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.task_type not in TASK_TYPES:
            raise ValueError(f"task {self.name!r}: unknown task_type {self.task_type!r}; valid: {sorted(TASK_TYPES)}")
        if self.loader is None and self.catalog_id is None:
            raise ValueError(f"task {self.name!r} needs a loader")

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
    from .models.registry import ModelSpec, resolve_model, spec_from_class

    if isinstance(spec, ModelSpec):
        return spec
    if isinstance(spec, str):
        return resolve_model(spec)
    if isinstance(spec, tuple):
        if len(spec) not in (2, 3):
            raise ValueError(f"model {name!r}: an inline tuple is (cls, task_types[, factory])")
        cls, fams = spec[0], spec[1]
        factory = spec[2] if len(spec) == 3 else None
        return spec_from_class(name, cls, task_types=fams, factory=factory)
    from .models.registry import MODEL_REGISTRY

    for reg in MODEL_REGISTRY.values():
        if reg.cls is spec:
            return ModelSpec(name, reg.ref, reg.task_types, spec, reg.factory, {}, reg.node_encoder)
    return spec_from_class(name, spec)


def _arrays_for(task: Task, seed: int, data_root: Path, params: dict) -> tuple[dict, str]:
    from .catalog.convert import default_split, to_arrays
    from .catalog.data import fetch_task, load_arrays_for_seed, read_meta

    if task.catalog_id is not None:
        task_dir = data_root / task.catalog_id
        if not (task_dir / "meta.json").is_file():
            fetch_task(task.catalog_id, params, data_root)
        meta = read_meta(task_dir)
        return load_arrays_for_seed(task_dir, seed, meta), task.split
    obj = task.loader(str(data_root / task.name), seed=seed) if task.seed_aware else task.loader(str(data_root / task.name))
    arrays = to_arrays(obj, task.task_type)
    return arrays, task.split or default_split(task.task_type, arrays)


def run_benchmark(category: str | None = None, models: dict | None = None, seeds: Iterable[int] = range(10),
                  tasks: Iterable[Task | str] | None = None, task_type: str | None = None,
                  only: Iterable[str] | None = None, epochs: int | dict[str, int] | None = None,
                  search: dict | None = None, *, hidden_channels: int = 64, lr: dict | None = None,
                  data_root: str | Path = "data", mirror: str | None = None, threads: int = 1,
                  progress: bool = True, **report_options):
    """Train every compatible (task, model, seed) in-process and return a ``BenchmarkReport``.

    ``epochs`` overrides every task's budget (an int) or some of them (a
    mapping task -> int). ``search`` is a ``params.yaml``-style search block.
    Incompatible pairs produce no cell; a failing seed is recorded as failed
    and the run goes on.
    """
    import torch

    from .params import DEFAULTS, _merge, validate
    from .report.core import BenchmarkReport
    from .training.runner import HEADLINE
    from .training.search import candidates, select
    from .training.seed_job import failure, fit_seed

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
    specs = {name: _model_spec(name, spec) for name, spec in model_map.items()}
    params = validate(_merge(DEFAULTS, {"tasks": [t.name for t in task_list], "models": list(specs),
                                        "seeds": seeds, "data": {"mirror": mirror},
                                        "train": {"epochs": {t.name: t.epochs for t in task_list}}}))
    torch.set_num_threads(int(threads))
    data_root = Path(data_root)
    grid = candidates(search)
    histories, cells, task_meta = {}, {}, {}
    total = sum(1 for t in task_list for s in specs.values() if s.serves(t.task_type)) * len(seeds) * max(1, len(grid))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc="run_benchmark", unit="run")
    for task in task_list:
        n_epochs = epochs.get(task.name, task.epochs) if isinstance(epochs, dict) else (epochs or task.epochs)
        fam = params["train"][task.task_type]  # the params.yaml defaults of the family
        fam_lr, fam_wd = (lr or {}).get(task.task_type, (fam["lr"], fam["weight_decay"]))
        hp = {"hidden_channels": hidden_channels, "lr": fam_lr, "weight_decay": fam_wd, "epochs": int(n_epochs),
              "eval_every": 1}
        metric, direction = HEADLINE[task.task_type]
        task_meta[task.name] = {"metric": metric, "direction": direction, "family": task.task_type,
                                "category": task.category}
        histories[task.name], cells[task.name] = {}, {}
        shared = None
        for name, spec in specs.items():
            if not spec.serves(task.task_type):
                continue  # an unsupported pair produces no cell
            runs, facts = [], {}
            for seed in seeds:
                t0 = time.perf_counter()
                try:
                    if task.seed_aware or shared is None:
                        arrays, split = _arrays_for(task, seed, data_root, params)
                        shared = None if task.seed_aware else (arrays, split)
                    else:
                        arrays, split = shared
                    results = []
                    for hp_c in ([{**hp, **c} for c in grid] or [hp]):
                        try:
                            results.append(fit_seed(spec, task.task_type, split, arrays, seed, hp_c))
                        except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
                            results.append(failure(exc, t0))
                        if bar is not None:
                            bar.update(1)
                    best, trace = select(results, metric, direction) if grid else (0, None)
                    res = results[best] if best is not None else results[0]
                except Exception as exc:  # noqa: BLE001 - data problems become failed seeds
                    res = failure(exc, t0)
                    trace = None
                runs.append(res["history"] if res["status"] == "ok" else None)
                facts[str(seed)] = {k: res[k] for k in ("status", "error", "seconds", "epochs") if k in res}
                if trace is not None:
                    facts[str(seed)]["search"] = trace
            statuses = {f["status"] for f in facts.values()}
            histories[task.name][name] = runs
            cells[task.name][name] = {"status": statuses.pop() if len(statuses) == 1 else "partial",
                                      "role": "roster", "seeds": facts}
    if bar is not None:
        bar.close()
    config = {"tasks": [t.name for t in task_list], "models": list(specs), "hidden_channels": hidden_channels,
              "search": search, "source": "run_benchmark"}
    return BenchmarkReport(seeds, histories, config, tasks=task_meta, cells=cells, **report_options)
