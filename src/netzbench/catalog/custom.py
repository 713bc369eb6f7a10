"""User datasets declared in ``params.yaml`` under ``custom_tasks`` (no package edit needed).

Raw files in a known format, no code (the declarative route)::

    custom_tasks:
      my_net:  {format: gml, path: raw/my_net, family: link_pred}
      my_book: {path: raw/books.gml, family: node_cls, label: value}   # format guessed from the files
      my_mols: {format: tu, path: /data/MY_MOLS/raw, family: graph_cls, epochs: 50}
      my_poll: {path: raw/poll.gml, family: node_cls, label: answer, missing: 9}  # 9: no answer, no class

``path`` (a folder or one file; relative to the repository) is the user's
raw input: netzbench reads it and never writes or deletes it. The formats
and what they read are listed in :mod:`.readers.declared`; the sha256 of
every file read, the counts and what was dropped go into ``meta.json``.

A Python loader (the code route)::

      my_assay:
        loader: my_pkg.data:load_assay   # importable from the repository
        path: raw/assay                   # optional: the folder given to the loader as ``root``
        family: graph_cls
        epochs: 50                        # the task's default budget (optional, default 100)
        category: biology                 # optional (one of the ten; default: custom)
        split: null                       # optional; null = chosen from the data

``loader(root)`` returns a PyG ``Data``, a sequence of ``Data`` (a PyG
dataset too) or an arrays dict (see :mod:`netzbench.graphs.convert`).
``root`` is the task's ``path`` when given (its files are hashed into
``meta.json``), else ``data/<task>/``, the folder fetch replaces (keep no
files there). A loader with a ``seed`` keyword is *seed-aware*: it is called
once per benchmark seed at training time (``loader(root, seed=s)``), so
cross-seed variance includes the data. As with catalogue tasks, list the id
in ``tasks``; it trains its ``epochs`` unless ``train.epochs.<id>`` overrides it.
"""

from __future__ import annotations

import copy
import inspect
import os
from pathlib import Path

from ..errors import ParamsError
from ..families import TASK_TYPES
from ..graphs.convert import GRAPH_FAMILIES, discarded, graph_x, to_bundle
from ..params import check_name, closest
from ..paths import import_ref, user_root
from . import positional
from .checks import DatasetError, normalise_labels
from .labels import LabelError, relabel
from .readers.declared import FAMILIES, FORMATS, read_dataset
from .readers.network_bundles import LABELLED
from .readers.files import data_files, sha256_of
from .table import CATEGORIES, DATASETS, TASKS, Dataset, TaskSpec, add_dataset, add_task, callable_ref

#: a seed-aware loader runs at training time, as a generator (part of result identity)
GENERATOR = "netzbench.synthetic.user:generate"
ENTRY_KEYS = ("loader", "format", "path", "family", "label", "features", "missing", "epochs", "category", "split",
              "name", "description", "license", "citation")
#: entry keys holding free text (or a split name: which ones fit the data is checked at fetch)
TEXT_KEYS = ("split", "name", "description", "license", "citation")
DEFAULT_EPOCHS = 100
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


def is_seed_aware(ref: str | None) -> bool:
    return ref is not None and "seed" in inspect.signature(_load(ref)).parameters


def _check_entry(tid: str, entry: dict) -> tuple[str | None, str | None]:
    """Raise :class:`ParamsError` for a bad entry; return ``(loader, format)``."""
    check_name(tid, "`custom_tasks` id")  # validate checked it too; this is also the API's way in
    where = f"params.yaml: `custom_tasks.{tid}"
    for key in entry:
        if key not in ENTRY_KEYS:
            raise ParamsError(f"{where}.{key}` is not a custom task key{closest(key, ENTRY_KEYS)}; "
                              f"valid keys: {', '.join(ENTRY_KEYS)}")
    loader, fmt, path, family = entry.get("loader"), entry.get("format"), entry.get("path"), entry.get("family")
    label, epochs = entry.get("label"), entry.get("epochs", DEFAULT_EPOCHS)
    if loader is None and path is None:
        raise ParamsError(f"{where}` needs `path:` (raw files in a known format) or `loader:` ('package.module:function')")
    if loader is not None and (not isinstance(loader, str) or ":" not in loader):
        raise ParamsError(f"{where}.loader` must be 'package.module:function', got {loader!r}")
    if loader is not None and (fmt is not None or label is not None):
        raise ParamsError(f"{where}`: `format`/`label` describe raw files read without code; a `loader` reads its "
                          "own files: give one route")
    if path is not None and (not isinstance(path, str) or not path.strip()):
        raise ParamsError(f"{where}.path` must be a file or folder name, got {path!r}")
    if not isinstance(family, str) or family not in TASK_TYPES:
        raise ParamsError(f"{where}.family` must be one of {sorted(TASK_TYPES)}, got {family!r}")
    if fmt is not None and fmt not in FORMATS:
        raise ParamsError(f"{where}.format` must be one of {', '.join(FORMATS)}, got {fmt!r}{closest(fmt, FORMATS)}")
    if fmt is not None and family not in FAMILIES[fmt]:
        raise ParamsError(f"{where}`: format {fmt!r} serves {', '.join(FAMILIES[fmt])}, not {family!r}")
    if label is not None and (not isinstance(label, str) or family != "node_cls" or fmt not in (None, *LABELLED)):
        raise ParamsError(f"{where}.label` names the node attribute (or node-table column) that is the class: "
                          f"node_cls from {' or '.join(LABELLED)} only, got {label!r} ({family}, "
                          f"{fmt or 'format guessed'})")
    if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs <= 0:
        raise ParamsError(f"{where}.epochs` must be a positive integer, got {epochs!r}")
    if "features" in entry:
        try:
            positional.parse(entry["features"])
        except ValueError as exc:
            raise ParamsError(f"{where}.features`: {exc}") from None
        if family not in ("node_cls", "link_pred"):
            raise ParamsError(f"{where}.features` is for node_cls and link_pred: a {family} collection's graphs "
                              "bring their own node features (or structural ones within each graph); drop it")
    if "missing" in entry:
        _check_missing(where, entry["missing"], family)
    category = entry.get("category")
    if category is not None and category not in (*CATEGORIES, "custom"):
        raise ParamsError(f"{where}.category` must be one of {', '.join((*CATEGORIES, 'custom'))}, got "
                          f"{category!r}{closest(category, CATEGORIES)}")
    for key in TEXT_KEYS:
        if entry.get(key) is not None and not isinstance(entry[key], str):
            raise ParamsError(f"{where}.{key}` must be text, got {entry[key]!r}")
    return loader, fmt


def _check_missing(where: str, missing, family: str) -> None:
    """Raise :class:`ParamsError` unless ``missing`` is label values (:mod:`.labels`) of a classification task."""
    codes = missing if isinstance(missing, list) else [missing]
    if not all(isinstance(c, (str, int, float)) and not isinstance(c, bool) for c in codes):
        raise ParamsError(f"{where}.missing` is the label value (or a list of them) that means 'no label', "
                          f"e.g. 9 or [9, 'NA'] ([] for none), got {missing!r}")
    if family not in ("node_cls", "graph_cls"):
        raise ParamsError(f"{where}.missing` names missing class labels: node_cls and graph_cls only, not "
                          f"{family}; drop it")


def register_custom_tasks(custom: dict) -> None:
    """Add (or update) the ``custom_tasks`` of params.yaml in the catalogue tables."""
    for tid, entry in (custom or {}).items():
        if not isinstance(entry, dict):
            raise ParamsError(f"params.yaml: `custom_tasks.{tid}` must be a mapping, got {entry!r}")
        if _REGISTERED.get(tid) == entry:
            continue
        if tid in TASKS and tid not in _REGISTERED:
            raise ParamsError(f"params.yaml: custom task {tid!r} collides with a catalogue task; pick another id")
        loader, fmt = _check_entry(tid, entry)
        family, epochs = entry["family"], entry.get("epochs", DEFAULT_EPOCHS)
        params = {"loader": loader, "family": family} if loader else {"family": family, "format": fmt,
                                                                      "label": entry.get("label")}
        params["features"] = entry.get("features")
        params["missing"] = entry.get("missing")
        params = {k: v for k, v in {**params, "path": entry.get("path")}.items() if v is not None}
        source = loader or f"{fmt or 'raw'} files in {entry['path']}"
        DATASETS.pop(tid, None)
        TASKS.pop(tid, None)
        add_dataset(Dataset(
            id=tid, name=entry.get("name", tid), category=entry.get("category") or "custom", families=(family,),
            description=entry.get("description", f"user dataset: {source}"),
            license=entry.get("license", "user-provided"), citation=entry.get("citation", ""),
            processor=process, builtin=True, in_paper=False, generator_params=params,
        ))
        add_task(TaskSpec(tid, tid, family, epochs, entry.get("split") or "auto",
                          entry.get("description", f"custom task ({source})"), in_paper=False))
        _REGISTERED[tid] = dict(entry)


def raw_path(path: str, out: str | os.PathLike) -> Path:
    """``path`` as a location: relative paths against the repository; never inside ``out`` (fetch
    replaces that folder), and it must exist."""
    p = Path(path).expanduser()
    p = Path(os.path.abspath(p if p.is_absolute() else user_root() / p))
    task = Path(out).name
    here = Path(os.path.abspath(out))
    if p == here or here in p.parents:
        raise DatasetError(f"custom task {task!r}: `path: {path}` is inside {out}/, the folder fetch replaces; "
                           "keep raw files elsewhere")
    if not p.exists():
        raise DatasetError(f"custom task {task!r}: `path: {path}` does not exist (looked for {p})")
    return p


def raw_hashes(files, base: Path) -> dict[str, str]:
    """sha256 of ``files``, keyed by their path relative to ``base`` (the name when ``base`` is a file)."""
    out = {}
    for f in files:
        f = Path(f)
        key = f.name if base.is_file() else f.relative_to(base).as_posix()
        out[key] = sha256_of(f)
    return dict(sorted(out.items()))


def missing_for_seed_aware(task: str) -> DatasetError:
    """The error of a seed-aware loader given missing label codes: its labels are made per seed at training
    time, past fetch."""
    return DatasetError(f"custom task {task!r}: `missing:` applies to data read at fetch; a seed-aware loader's "
                        "labels are made at training time: leave an unlabelled graph out, give an unlabelled node "
                        "y = -1")


def loader_params(params: dict, out: str | os.PathLike) -> dict:
    """The generator parameters of a seed-aware loader: loader, family and the ``root`` it is given.
    ``missing:`` cannot apply: the loader's labels are made at training time, per seed, past fetch."""
    if "missing" in params:
        raise missing_for_seed_aware(Path(out).name)
    root = str(raw_path(params["path"], out)) if "path" in params else str(out)
    return {"loader": params["loader"], "family": params["family"], "root": root}


def loader_raw(params: dict, out: str | os.PathLike) -> dict:
    """``{"path", "raw_sha256"}`` of a loader's ``path`` (every file under it), or ``{}`` without one."""
    if "path" not in params:
        return {}
    base = raw_path(params["path"], out)
    return {"path": params["path"], "raw_sha256": raw_hashes(data_files(base) if base.is_dir() else [base], base)}


def with_features(obj, family: str):
    """``(obj, filled)``: a graph collection whose graphs all have ``x``: a graph without (PyG's
    ``TUDataset`` of a collection without node labels) gets :func:`~netzbench.graphs.convert.graph_x`,
    ``[1, log(1 + degree)]`` with degrees within the graph; ``filled`` says whether any did."""
    if family not in GRAPH_FAMILIES or isinstance(obj, dict) or not hasattr(obj, "__len__"):
        return obj, False
    import torch
    from torch_geometric.data.data import BaseData

    if isinstance(obj, BaseData) or all(getattr(g, "x", None) is not None for g in obj):
        return obj, False

    graphs = []
    for g in obj:
        if getattr(g, "x", None) is None:
            g = copy.copy(g)
            g.x = torch.as_tensor(graph_x(g))
        graphs.append(g)
    return graphs, True


def process(root: str, family: str, loader: str | None = None, path: str | None = None, format: str | None = None,
            label: str | None = None, features: str | None = None, missing=None) -> tuple[dict, dict, dict]:
    """Read a custom task's data: ``(arrays, counts, record)``, ``record`` holding the fields of
    ``meta.json`` that say where the data came from (format, raw file hashes, loader, what was
    dropped, the class-label mapping when labels were not ``0..C-1``: :mod:`.checks`, and for node
    classification the node features used where the files give none: :mod:`.positional`). Class labels
    are made ``0..C-1`` from their original values and ``missing`` codes (None: those recognised in the
    files) left out (:mod:`.labels`: ``label_mapping``, ``label_missing``)."""
    arrays, counts, record = _read(root, family, loader, path, format, label)
    arrays, record = with_classes(Path(root).name, family, arrays, record, missing)
    if family in ("node_cls", "link_pred") and not (family == "link_pred" and "train_edge_type" in arrays):
        choose = positional.node_features if family == "node_cls" else positional.link_features
        try:
            arrays, used = choose(arrays, features)
        except ValueError as exc:
            raise DatasetError(f"custom task {Path(root).name!r}: {exc}") from None
        if used is not None:
            record["node_features"] = used
            if "x" in arrays or "laplacian_k" in arrays:
                counts = {**counts, "num_features": int(arrays["x"].shape[1]) if "x" in arrays else used["dim"]}
    return arrays, counts, record


def with_classes(task: str, family: str, arrays: dict, record: dict, missing) -> tuple[dict, dict]:
    """``(arrays, record)`` of task ``task`` with class labels ``0..C-1`` and missing ones left out (:func:`.labels.relabel`):
    ``record``'s ``label_mapping`` replaced by the final one, ``label_missing`` added when labels were missing.
    (The family's counts, ``num_classes`` and ``num_graphs`` among them, are made from the arrays at fetch.)"""
    try:
        arrays, mapping, gone = relabel(arrays, family, record.pop("label_mapping", None), missing)
    except LabelError as exc:
        raise DatasetError(f"custom task {task!r} ({family}): {exc}") from None
    if mapping is not None:
        record["label_mapping"] = mapping
    if gone:
        record["label_missing"] = gone
    return arrays, record


def _read(root: str, family: str, loader: str | None, path: str | None, format: str | None,
          label: str | None) -> tuple[dict, dict, dict]:
    task = Path(root).name
    if loader is None:
        raw = raw_path(path, root)
        try:
            bundle = read_dataset(raw, family, format, label)
        except DatasetError as exc:
            raise DatasetError(f"custom task {task!r} ({family}): {exc}") from None
        notes = dict(bundle.notes)
        record = {"format": notes.pop("format"), "path": path, "raw_sha256": raw_hashes(bundle.files, raw),
                  "dropped": bundle.dropped}
        if "label_mapping" in notes:
            record["label_mapping"] = notes.pop("label_mapping")
        if notes:
            record["notes"] = notes
        return bundle.arrays, bundle.counts, record
    record = {"format": "custom", "raw_sha256": {}, "loader": loader, **loader_raw({"path": path} if path else {}, root)}
    load = _load(loader)
    try:
        obj = load(str(raw_path(path, root)) if path else root)
    except Exception as exc:  # noqa: BLE001 - the user's code: say whose it was, not a traceback
        raise DatasetError(f"custom task {task!r}: its loader {loader} raised {type(exc).__name__}: {exc}") from exc
    obj, filled = with_features(obj, family)
    obj, mapping = normalise_labels(obj, family)
    arrays, counts = to_bundle(obj, family)
    record["dropped"] = discarded(obj)
    if filled:
        record["notes"] = {"node_features": "structural [1, log(1 + degree)] for graphs without x"}
    if mapping:
        record["label_mapping"] = mapping
    return arrays, counts, record


#: the name of custom tasks' processor, kept for callers that compared ``Dataset.processor`` with it
#: (it holds :func:`process` itself now)
PROCESSOR = callable_ref(process)
