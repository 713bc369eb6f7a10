"""The checks that need names: params against the catalogue and the model registry.

:mod:`netzbench.params` checks values (types, ranges, choices) and option
keys; this module checks that the names in them exist, registering
``custom_tasks`` in the catalogue first. Every command of the command line
checks the whole file (every task, roster model, the candidate, the names
``train.model_config``, ``train.epochs`` and ``report.weights`` are keyed
by), so the first stage that runs stops on a bad name, not the cell that
uses it after others trained. The Python API goes through here too. It also
refuses what needs the catalogue to be seen: selecting on a validation set that
the protocol makes the reported test set (``best_val`` or a search on a
``graph_split: 80_20`` graph task).
"""

from __future__ import annotations

import importlib.util

from .catalog.custom import register_custom_tasks
from .catalog.table import TASKS, UnknownTaskError, get_task
from .errors import ParamsError
from .model_traits import model_traits, model_families
from .models.registry import MODEL_REGISTRY, ModelError, builtin_families
from .models.roster import BUILTIN_MODELS
from .params import closest, undo_hint, validation_is_reported
from .paths import repository_on_path
from .settings import Settings, thaw


def configure(settings: Settings) -> Settings:
    """Register the ``custom_tasks`` of ``settings`` in the catalogue; return ``settings``."""
    register_custom_tasks(thaw(settings.custom_tasks))
    return settings


def load_config(path, *, import_models: bool = False) -> Settings:
    """``params.yaml`` loaded, validated, resolved into :class:`~netzbench.settings.Settings`, its custom
    tasks registered and every name in it checked."""
    return check_names(configure(Settings.load(path)), import_models=import_models, source=str(path))


def check_task(task_id: str):
    """The catalogue's spec of ``task_id`` (:class:`~netzbench.catalog.table.UnknownTaskError` if unknown)."""
    return get_task(task_id)


def check_model(model: str, model_args: dict | None = None) -> None:
    """Fail early, with the valid choices, for an unknown or unimportable model
    (:class:`~netzbench.models.registry.ModelError`)."""
    model_families(model, model_args)  # a user's module:Class imported unless its source is unchanged


def _model_exists(model: str, import_models: bool) -> None:
    """Raise :class:`ModelError` unless ``model`` names a model; without ``import_models`` a
    ``module:Class`` reference is only located (no import: torch stays out of fetch and report)."""
    if builtin_families(model) is not None or model in MODEL_REGISTRY:
        return
    if import_models or ":" not in model:
        if ":" not in model:
            known = sorted(BUILTIN_MODELS) + sorted(MODEL_REGISTRY)
            raise ModelError(f"unknown model {model!r}{closest(model, known)}; known models: {', '.join(known)}, "
                             "or give an importable class as 'package.module:ClassName'")
        model_traits(model)  # imports it, unless its source is unchanged since it last did
        return
    module = model.partition(":")[0]
    repository_on_path()
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ModelError(f"cannot find module {module!r} for model {model!r} (is it under user_models/ "
                         "or installed?)")


def check_names(settings: Settings, *, import_models: bool = False, source: str = "params.yaml") -> Settings:
    """Raise :class:`ParamsError` for the first unknown name anywhere in ``settings``; return them."""
    def fail(msg: str):
        raise ParamsError(f"{source}: {msg}{undo_hint(source)}")

    model = settings.candidate.model
    names = [*settings.models, *([model] if model else [])]
    for key, tasks in (("`tasks`", settings.tasks), ("`controls.tasks`", settings.controls.tasks)):
        for task in tasks:
            try:
                get_task(task)
            except UnknownTaskError as exc:
                fail(f"{key}: {exc}")
    for key, models in (("`models`/`model`", names), ("`controls.models`", settings.controls.models or [])):
        for model in models:
            try:
                _model_exists(model, import_models)
            except ModelError as exc:
                fail(f"{key}: {exc}")
    catalogue = (sorted(TASKS), "a task of the catalogue or `custom_tasks`")
    # rank_tasks/rank_exclude may name tasks not in `tasks` (narrowing `tasks` needs no edit there), but a
    # name no task has is a typo: both are checked alike, as every key naming a task or model is
    for key, value, (known, what) in (
            ("train.model_config", settings.train.model_config, (names, "a model of `models` or `model`")),
            ("train.epochs", settings.train.epochs, catalogue),
            ("report.weights", settings.report.weights, (settings.tasks, "a task of `tasks`")),
            ("report.rank_tasks", settings.report.rank_tasks, catalogue),
            ("report.rank_exclude", settings.report.rank_exclude, catalogue)):
        value = value or {}
        for entry in value:
            if entry not in known:
                shown = f"`{key}.{entry}`" if isinstance(value, dict) else f"`{key}` entry {entry!r}"
                fail(f"{shown} is not {what}{closest(entry, known)}")
    _check_selection(settings, fail)
    return settings


def _check_selection(settings: Settings, fail) -> None:
    """Refuse what selects on a validation set that is the reported test set (the ``graph_split: 80_20``
    graph tasks, :func:`netzbench.params.validation_is_reported`): ``best_val`` and a search."""
    switches = settings.protocol.values()
    tasks = [t for t in settings.tasks if validation_is_reported(switches, get_task(t).family, get_task(t).split)]
    if not tasks:
        return
    where = (f"under `graph_split: 80_20` (protocol `{settings.protocol_name}`) the validation set of "
             f"{', '.join(tasks)} is the reported test set")
    if settings.report.epoch_selection == "best_val":
        fail(f"`report.epoch_selection: best_val` selects the epoch on the validation set, but {where}, so it "
             "would select on the test set: use `report.epoch_selection: final`, set `protocol_overrides: "
             "{graph_split: 80_10_10}`, or leave those tasks out")
    if settings.search.space:
        fail(f"`search.space` selects hyperparameters on the validation set, but {where}, so the search would "
             "select on the test set: drop `search.space`, set `protocol_overrides: {graph_split: 80_10_10}`, or "
             "leave those tasks out")
