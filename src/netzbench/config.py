"""The checks that need names: params against the catalogue and the model registry.

:mod:`netzbench.params` checks values (types, ranges, choices); this module
checks that the names in them exist, registering ``custom_tasks`` in the
catalogue first. The command line and the Python API both go through here.
"""

from __future__ import annotations

from .catalog.custom import register_custom_tasks
from .catalog.table import get_task
from .models.registry import builtin_families, resolve_model
from .params import load_params


def configure(params: dict) -> dict:
    """Register the ``custom_tasks`` of validated ``params`` in the catalogue; return ``params``."""
    register_custom_tasks(params["custom_tasks"])
    return params


def load_config(path) -> dict:
    """``params.yaml`` loaded, validated and its custom tasks registered."""
    return configure(load_params(path))


def check_task(task_id: str):
    """The catalogue's spec of ``task_id`` (:class:`~netzbench.catalog.table.UnknownTaskError` if unknown)."""
    return get_task(task_id)


def check_model(model: str, model_args: dict | None = None) -> None:
    """Fail early, with the valid choices, for an unknown or unimportable model
    (:class:`~netzbench.models.registry.ModelError`)."""
    if builtin_families(model) is None:
        resolve_model(model, model_args or {})
