"""User datasets declared in ``params.yaml`` under ``custom_tasks`` (no package edit needed).

::

    custom_tasks:
      my_assay:
        loader: my_pkg.data:load_assay   # importable from the repository
        family: graph_cls
        epochs: 50                        # the task's default budget
        category: biology                 # optional (one of the ten; default: custom)
        split: null                       # optional; null = chosen from the data

``loader(root)`` returns a PyG ``Data``, a sequence of ``Data`` or an arrays
dict (see :mod:`netzbench.graphs.convert`). A loader with a ``seed``
keyword is *seed-aware*: it is called once per benchmark seed at training
time (``loader(root, seed=s)``), so cross-seed variance includes the data.
As with catalogue tasks, list the id in ``tasks`` and give it
``train.epochs.<id>``.
"""

from __future__ import annotations

import inspect

from ..errors import ParamsError
from ..families import TASK_TYPES
from ..graphs.convert import to_bundle
from ..paths import import_ref
from .checks import normalise_labels
from .table import DATASETS, TASKS, Dataset, TaskSpec, add_dataset, add_task

PROCESSOR = "netzbench.catalog.custom:process"
#: a seed-aware loader runs at training time, as a generator (part of result identity)
GENERATOR = "netzbench.synthetic.user:generate"
_REGISTERED: dict[str, dict] = {}


def _load(ref: str):
    try:
        return import_ref(ref)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"custom task loader {ref!r} cannot be imported: {exc}") from exc


def loader_source_sha256(ref: str) -> str | None:
    """sha256 of the loader's module file, so editing a seed-aware loader changes ``meta.json``."""
    import hashlib

    path = inspect.getsourcefile(_load(ref))
    return hashlib.sha256(open(path, "rb").read()).hexdigest() if path else None


def is_seed_aware(ref: str) -> bool:
    return "seed" in inspect.signature(_load(ref)).parameters


def register_custom_tasks(custom: dict) -> None:
    """Add (or update) the ``custom_tasks`` of params.yaml in the catalogue tables."""
    for tid, entry in (custom or {}).items():
        if not isinstance(entry, dict):
            raise ParamsError(f"params.yaml: `custom_tasks.{tid}` must be a mapping, got {entry!r}")
        if _REGISTERED.get(tid) == entry:
            continue
        if tid in TASKS and tid not in _REGISTERED:
            raise ParamsError(f"params.yaml: custom task {tid!r} collides with a catalogue task; pick another id")
        loader, family, epochs = entry.get("loader"), entry.get("family"), entry.get("epochs")
        if not isinstance(loader, str) or ":" not in loader:
            raise ParamsError(f"params.yaml: `custom_tasks.{tid}.loader` must be 'package.module:function', got {loader!r}")
        if family not in TASK_TYPES:
            raise ParamsError(f"params.yaml: `custom_tasks.{tid}.family` must be one of {sorted(TASK_TYPES)}, got {family!r}")
        if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs <= 0:
            raise ParamsError(f"params.yaml: `custom_tasks.{tid}.epochs` must be a positive integer, got {epochs!r}")
        DATASETS.pop(tid, None)
        TASKS.pop(tid, None)
        add_dataset(Dataset(
            id=tid, name=entry.get("name", tid), category=entry.get("category") or "custom", families=(family,),
            description=entry.get("description", f"user dataset loaded by {loader}"),
            license=entry.get("license", "user-provided"), citation=entry.get("citation", ""),
            processor=PROCESSOR, builtin=True, in_paper=False, generator_params={"loader": loader, "family": family},
        ))
        add_task(TaskSpec(tid, tid, family, epochs, entry.get("split") or "auto",
                          entry.get("description", f"custom task ({loader})"), in_paper=False))
        _REGISTERED[tid] = dict(entry)


def process(root: str, loader: str, family: str) -> tuple[dict, dict, dict | None]:
    """Call a non-seed-aware loader once and convert what it returns: arrays, counts and the
    class-label mapping (None when the labels were ``0..C-1`` already; :mod:`.checks`)."""
    obj, mapping = normalise_labels(_load(loader)(root), family)
    arrays, counts = to_bundle(obj, family)
    return arrays, counts, mapping
