"""The model registry: names -> classes, the families they serve, how to build them.

Four ways to plug a model in:

1. ``@register_model(task_type={"node_cls", ...})`` on the class;
2. a class attribute ``task_types = {...}`` (no decorator dependency);
3. an inline ``(cls, task_types[, factory])`` tuple in ``run_benchmark``'s
   models mapping;
4. ``model: package.module:ClassName`` in ``params.yaml`` (imported with the
   repository on ``sys.path``).

A class that declares nothing is taken to be a node-level encoder
``cls(in_channels, hidden_channels, out_channels)`` returning per-node
outputs, and serves all four families through the adapters. A class with
``node_encoder = True`` likewise gets adapters for the families it lists;
any other class is called natively for the families it lists.

A class attribute ``baseline`` (``True`` or a kind such as ``"structure_free"``
or ``"heuristic"``) marks a reference point rather than a model under test;
the run record carries it (``baseline_kind``) and the report keeps such
models apart (``report.baselines``). ``heuristic = True`` marks a model that is
scored on the training graph without training (:mod:`.heuristics`).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

from ..families import TASK_TYPES
from ..paths import repository_on_path
from .roster import ALL_FAMILIES, BUILTIN_BASELINES, BUILTIN_MODELS


class ModelError(ValueError):
    """A model name or reference cannot be resolved, or is misdeclared."""


@dataclass
class ModelSpec:
    name: str
    ref: str  # "module:Class" (or "<inline>")
    task_types: frozenset[str]
    cls: type | None = None
    factory: Callable | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    node_encoder: bool = True
    builtin: bool = False

    def serves(self, family: str) -> bool:
        return family in self.task_types

    @property
    def baseline(self) -> str | None:
        """The model's baseline kind (:func:`baseline_kind`), None for a model under test."""
        return baseline_kind(self.cls)


def baseline_kind(cls) -> str | None:
    """A class's ``baseline`` declaration as a kind: ``True`` is ``"baseline"``, a string is itself,
    anything false (or no declaration) is None."""
    declared = getattr(cls, "baseline", None)
    if not declared:
        return None
    return declared if isinstance(declared, str) else "baseline"


#: models registered with :func:`register_model` (name -> spec)
MODEL_REGISTRY: dict[str, ModelSpec] = {}


def _check_families(task_type, where: str) -> frozenset[str]:
    if isinstance(task_type, str):
        task_type = {task_type}
    fams = frozenset(task_type)
    unknown = sorted(fams - TASK_TYPES)
    if unknown or not fams:
        raise ModelError(
            f"{where}: unknown task type(s) {unknown or '(empty)'}; valid task types are {sorted(TASK_TYPES)}"
        )
    return fams


def register_model(cls: type | None = None, *, task_type, name: str | None = None,
                   factory: Callable | None = None):
    """Register ``cls`` for ``task_type`` (a family or a set of families).

    Usable as ``@register_model(task_type={"node_cls"})`` or as
    ``register_model(MyEncoder, task_type=ALL, factory=multi_task_factory(MyEncoder))``.
    Rejects families outside :data:`netzbench.families.TASK_TYPES`.
    """
    fams = _check_families(task_type, f"register_model({name or getattr(cls, '__name__', '?')})")

    def _register(c: type) -> type:
        key = name or c.__name__
        if "task_types" not in vars(c):  # never rewrite a class's own declaration (e.g. GCN under an alias)
            c.task_types = fams
        MODEL_REGISTRY[key] = ModelSpec(
            key, f"{c.__module__}:{c.__qualname__}", fams, c, factory,
            node_encoder=bool(getattr(c, "node_encoder", False)),
        )
        return c

    return _register(cls) if cls is not None else _register


def unregister_model(name: str) -> None:
    MODEL_REGISTRY.pop(name, None)


def builtin_families(name: str) -> frozenset[str] | None:
    """Families of a built-in model, without importing torch (None if not built in)."""
    entry = BUILTIN_MODELS.get(name)
    return entry[1] if entry else None


def builtin_baseline(name: str) -> str | None:
    """Baseline kind of a built-in model, without importing torch (None for a model under test)."""
    return BUILTIN_BASELINES.get(name)


def _import_ref(ref: str) -> type:
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ModelError(f"model reference {ref!r} must look like 'package.module:ClassName'")
    repository_on_path()
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ModelError(f"cannot import module {module_name!r} for model {ref!r}: {exc}") from exc
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            public = sorted(n for n, v in vars(module).items() if inspect.isclass(v) and not n.startswith("_"))
            raise ModelError(f"module {module_name!r} has no {attr!r}; classes there: {public}")
        obj = getattr(obj, part)
    return obj


def spec_from_class(name: str, cls: type, ref: str | None = None, kwargs: dict | None = None,
                    task_types=None, factory: Callable | None = None) -> ModelSpec:
    """A spec for a class, reading ``task_types``/``node_encoder`` declarations."""
    if not inspect.isclass(cls) and factory is None:
        raise ModelError(f"model {name!r} must be a class, got {cls!r}")
    declared = task_types if task_types is not None else getattr(cls, "task_types", None)
    if declared is None:
        fams, node_encoder = ALL_FAMILIES, True
    else:
        fams = _check_families(declared, f"model {name}")
        node_encoder = bool(getattr(cls, "node_encoder", False))
    return ModelSpec(
        name, ref or f"{getattr(cls, '__module__', '?')}:{getattr(cls, '__qualname__', name)}",
        fams, cls, factory, dict(kwargs or {}), node_encoder,
    )


def resolve_model(name_or_ref: str, kwargs: dict | None = None) -> ModelSpec:
    """Resolve a roster name, a registered name or ``module:Class`` to a :class:`ModelSpec`."""
    if name_or_ref in BUILTIN_MODELS:
        ref, fams = BUILTIN_MODELS[name_or_ref]
        spec = spec_from_class(name_or_ref, _import_ref(ref), ref, kwargs)
        spec.builtin = True
        assert spec.task_types == fams, f"roster table disagrees with {ref}.task_types"
        assert spec.baseline == BUILTIN_BASELINES.get(name_or_ref), f"roster table disagrees with {ref}.baseline"
        return spec
    if name_or_ref in MODEL_REGISTRY:
        reg = MODEL_REGISTRY[name_or_ref]
        return ModelSpec(reg.name, reg.ref, reg.task_types, reg.cls, reg.factory, dict(kwargs or {}), reg.node_encoder)
    if ":" not in name_or_ref:
        known = sorted(BUILTIN_MODELS) + sorted(MODEL_REGISTRY)
        raise ModelError(
            f"unknown model {name_or_ref!r}; known models: {', '.join(known)}, "
            "or give an importable class as 'package.module:ClassName'"
        )
    cls = _import_ref(name_or_ref)
    # a class registered by decorator at import time keeps its registered factory
    for reg in MODEL_REGISTRY.values():
        if reg.cls is cls:
            return ModelSpec(name_or_ref, name_or_ref, reg.task_types, cls, reg.factory, dict(kwargs or {}), reg.node_encoder)
    return spec_from_class(name_or_ref, cls, name_or_ref, kwargs)


def build_model(spec: ModelSpec, task_type: str, in_channels: int, hidden_channels: int, out_channels: int,
                num_relations: int | None = None, relation_init: str = "xavier"):
    """Instantiate ``spec`` for ``task_type``, adding the adapter it needs (a DistMult decoder for
    relational link prediction when ``num_relations`` is given, its relation vectors initialised
    ``relation_init``: ``xavier`` or ``normal``)."""
    from .adapters import wrap_encoder

    if not spec.serves(task_type):
        raise ModelError(f"model {spec.name} does not serve {task_type} (it serves {sorted(spec.task_types)})")
    if getattr(spec.cls, "heuristic", False):  # no parameters: the link trainers score it once
        return spec.cls(**spec.kwargs)
    if spec.factory is not None:
        params = inspect.signature(spec.factory).parameters
        if "task_type" in params:
            extra = {"num_relations": num_relations} if "num_relations" in params else {}
            if "relation_init" in params:
                extra["relation_init"] = relation_init
            return spec.factory(in_channels, hidden_channels, out_channels, task_type=task_type, **extra)
        module = spec.factory(in_channels, hidden_channels, out_channels)
        return _native(module, task_type, num_relations, hidden_channels, relation_init)

    def make(i: int, h: int, o: int):
        try:
            return spec.cls(i, h, o, **spec.kwargs)
        except TypeError as exc:
            raise ModelError(
                f"cannot construct {spec.name}({i}, {h}, {o}, **{spec.kwargs}): {exc}. Models are built as "
                "cls(in_channels, hidden_channels, out_channels, **model_args)"
            ) from exc

    if spec.node_encoder:
        return wrap_encoder(make, task_type, in_channels, hidden_channels, out_channels, num_relations, relation_init)
    return _native(make(in_channels, hidden_channels, out_channels), task_type, num_relations, hidden_channels,
                   relation_init)


def _native(module, task_type: str, num_relations: int | None = None, hidden_channels: int = 0,
            relation_init: str = "xavier"):
    from .adapters import DistMultLink, DotProductLink, NativeGraphModel, NodeModel

    if task_type in ("graph_cls", "graph_reg"):
        return NativeGraphModel(module)
    if task_type == "link_pred":
        if num_relations:
            return DistMultLink(module, num_relations, hidden_channels, init=relation_init)
        return DotProductLink(module)
    return NodeModel(module)
