"""What every command shares: the error that exits 2, and params.yaml and names checked before any work.

Every command validates ``params.yaml`` and its arguments first and stops with a message naming the
problem and the valid choices (exit code 2) before anything is trained.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .errors import ParamsError

if TYPE_CHECKING:  # annotations only: the commands import what they need when they run
    from .settings import Settings


class UserError(click.ClickException):
    exit_code = 2


class Commands(click.Group):
    """The command group: an :class:`~.errors.InputError` (or an unsafe path) that any command meets past its
    own checks -- a torn or hostile file, a path outside its folder, a value out of range -- ends it with its
    one-line message and exit code 2, never a traceback."""

    def invoke(self, ctx):
        from .errors import InputError
        from .paths import UnsafePath

        try:
            return super().invoke(ctx)
        except (InputError, UnsafePath) as exc:
            raise UserError(str(exc)) from None


def check_finite(values: dict) -> None:
    """Each named number (None: not given) finite: click's ranges let ``nan`` and ``inf`` through."""
    import math

    for name, value in values.items():
        if value is not None and not math.isfinite(value):
            raise UserError(f"{name} must be a finite number, got {value}")


def declared_arithmetic(path: str) -> str:
    """``exec.arithmetic`` as written in the params file (or the default), read without validation (but
    read as safely as :func:`~netzbench.params.load_params` reads it: an anchor bomb is refused here too)."""
    from .params import DEFAULTS, read_yaml

    try:
        raw = read_yaml(path) or {}
        mode = (raw.get("exec") or {}).get("arithmetic")
    except (OSError, ParamsError, AttributeError):
        mode = None  # load_config reports what is wrong with the file
    return mode if isinstance(mode, str) else DEFAULTS["exec"]["arithmetic"]


def checked_params(path: str, *, import_models: bool = True, before_import=None) -> Settings:
    """``params.yaml`` validated as a whole (values, keys, every name in it), with its custom tasks
    registered in the catalogue, resolved into :class:`~netzbench.settings.Settings` (the command line's
    one reading of it); ``import_models=False`` locates ``module:Class`` models without importing them
    (and torch). ``before_import(settings)`` is called with the checked settings just before the models
    are imported (something to start meanwhile)."""
    from .config import check_names, load_config

    from .run.arithmetic import configure

    try:
        # before anything imports torch (resolving a model may): this process and its workers inherit it
        configure(declared_arithmetic(path))
        settings = load_config(path)  # every name checked; a module:Class model located, not imported
        configure(settings.execution.arithmetic)
        if import_models:
            if before_import is not None:
                before_import(settings)
            check_names(settings, import_models=True, source=str(path))
        return settings
    except ParamsError as exc:
        raise UserError(str(exc)) from None


def check_task_name(task: str) -> None:
    from .catalog.table import UnknownTaskError
    from .config import check_task
    from .params import unsafe_name

    why = unsafe_name(task)  # before the catalogue: the id becomes data/<task>/ and metrics/runs/<task>/
    if why:
        raise UserError(f"task {task!r} {why}")
    try:
        check_task(task)
    except UnknownTaskError as exc:
        raise UserError(str(exc)) from None


def check_model_name(model: str, model_args: dict | None = None) -> None:
    from .config import check_model
    from .models.registry import ModelError
    from .params import unsafe_name

    why = unsafe_name(model, model=True)  # the name becomes metrics/runs/<task>/<model>.json
    if why:
        raise UserError(f"model {model!r} {why}")
    try:
        check_model(model, model_args)
    except ModelError as exc:
        raise UserError(str(exc)) from None


def check_rank_names(settings: Settings, path: str) -> Settings:
    """``settings`` (read without the catalogue, as the report reads them), once a ``report.rank_tasks`` or
    ``rank_exclude`` name that is not one of ``tasks`` is checked against the catalogue as ``dvc repro``
    checks it (:class:`ParamsError` for a typo)."""
    named = [*(settings.report.rank_tasks or []), *settings.report.rank_exclude]
    if any(t not in settings.tasks for t in named):
        from .config import load_config

        load_config(path)
    return settings


#: what every meta.json fetch writes holds (a torn or hand-cut one lacks some)
META_KEYS = ("task", "family", "split", "status")


def check_meta(data_root: str, task: str) -> None:
    """``data_root/task/meta.json``, where there is one, readable and complete: a torn or incomplete file is a
    one-line :class:`UserError` saying to fetch the task again (a missing one is the command's to name)."""
    import json
    from pathlib import Path

    path = Path(data_root) / task / "meta.json"
    if not path.is_file():
        return
    again = f"run `netzbench fetch {task}` again"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        why = f"not JSON ({exc.msg} at line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise UserError(f"{path} cannot be read: {why} (a torn write?); {again}") from None
    missing = [k for k in META_KEYS if k not in meta] if isinstance(meta, dict) else list(META_KEYS)
    if missing:
        raise UserError(f"{path} is incomplete (no {', '.join(missing)}); {again}")


def check_device(settings: Settings) -> None:
    """``exec.device: cuda`` on a machine without a CUDA device is a one-line error; CUDA is never initialised
    in this process (its seed workers could not use it after a fork: :mod:`netzbench.run.device`)."""
    if settings.execution.device == "cuda":
        from .run.device import DeviceError, resolve

        try:
            resolve("cuda")
        except DeviceError as exc:
            raise UserError(str(exc)) from None


def epoch_budgets(budgets, tasks: list[str]) -> dict[str, int]:
    """``--epochs TASK=N`` options as ``{task: N}``; a malformed one, a task not being run or a
    non-positive N is a one-line error."""
    out = {}
    for text in budgets:
        task, sep, n = text.partition("=")
        if not sep or not task or not n.strip().isdigit() or int(n) <= 0:
            raise UserError(f"--epochs {text!r}: give TASK=N with N a positive whole number of epochs")
        if task not in tasks:
            raise UserError(f"--epochs {text!r}: {task} is not one of the tasks being run ({', '.join(tasks)})")
        out[task] = int(n)
    return out
