"""Result identity: which code and which inputs decide a number.

One declaration, used by both places that decide whether a result is still
valid:

- the per-seed result cache: the key of every (task, model, seed, search
  candidate) hashes the source of :data:`RESULT_CODE` (plus a user model's
  source), the resolved task spec, the processed data ``data/<task>/`` (its
  ``meta.json`` included), the hyperparameters, the seed, the thread count
  and the device;
- ``dvc.yaml``: the train stage (one, for every task) depends on exactly the
  :data:`RESULT_CODE` paths, the report stage on :data:`REPORT_CODE`. The
  tests check that ``dvc.yaml`` agrees, and that every module a training run
  or the report imports is declared here.

Code a training run imports outside :data:`RESULT_CODE` is declared in
:data:`EXECUTION_ONLY` (how things run: it never changes a number) or in
:data:`DATA_STAGE` (the catalogue: what it decides -- processed arrays, the
task's split and loader arguments -- reaches training only through
``data/<task>/``, which DVC tracks and the key hashes, since training reads
the task spec from ``meta.json``). This module does not import torch.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

from .paths import repository_on_path

PACKAGE_DIR = Path(__file__).resolve().parent

#: Everything that can change a trained number (paths under ``src/netzbench``):
#: the graph layout and features, the generators of synthetic data, the models,
#: the training loops, splits, metrics and search, the protocol's switches, and
#: the headline per family.
RESULT_CODE = ("families.py", "graphs", "models", "protocol.py", "synthetic", "training")

#: What the report stage's numbers and text depend on.
REPORT_CODE = ("families.py", "params.py", "protocol.py", "records.py", "report", "stats")

#: Imported by a training run, never deciding a number (module or package -> why).
EXECUTION_ONLY = {
    "netzbench": "the package facade: version and lazily imported names",
    "netzbench.api": "the Python entry point: builds params and runs the same plan -> executor -> record path",
    "netzbench.cli": "the command line the stages call",
    "netzbench.cli_common": "the command line's argument and params checks",
    "netzbench.cli_review": "the commands that read runs (estimate, verify, compare, exps), added to the group",
    "netzbench.config": "checks names in params against the catalogue and the model registry",
    "netzbench.console": "prints the command line's log messages on stderr",
    "netzbench.errors": "error types",
    "netzbench.identity": "this declaration and the key it defines",
    "netzbench.model_traits": "a user model's families and baseline kind, remembered per source (planning only)",
    "netzbench.params": "validation; the resolved values enter the key as hyperparameters",
    "netzbench.params_file": "reads the params file safely (size, duplicate keys, anchor bombs); decides no value",
    "netzbench.paths": "where files live, imports by reference",
    "netzbench.settings": "params resolved once into frozen settings; the values enter the key as hyperparameters",
    "netzbench.records": "reading and writing run records",
    "netzbench.study": "the protocol study: runs variants through the same plan -> executor -> record path",
    "netzbench.seed_plan": "the seed plan: rounds of the same plan -> executor -> record path",
    "netzbench.structure_controls": "structure controls: the same plan -> executor -> record path on control data",
    "netzbench.quick": "the quick profile: copies the repository and runs dvc repro there",
    "netzbench.run": "planning, executors, workers, limits, progress, the per-seed cache",
}

#: Imported by a training run; reaches a number only through ``data/<task>/``.
DATA_STAGE = {
    "netzbench.catalog": "datasets, tasks, fetching and processing: its output is data/<task>/ "
                         "(arrays and the resolved task spec in meta.json), a tracked and hashed input",
}


def _declared(module: str, names) -> bool:
    # "netzbench" names the facade module only, not everything below it
    return any(module == n or (n != "netzbench" and module.startswith(n + ".")) for n in names)


def result_modules() -> tuple[str, ...]:
    """:data:`RESULT_CODE` as module names (``netzbench.graphs``, ``netzbench.families``, ...)."""
    return tuple("netzbench." + entry.removesuffix(".py").replace("/", ".") for entry in RESULT_CODE)


def classify(module: str) -> str | None:
    """``"result"``, ``"execution"``, ``"data"`` for a ``netzbench`` module, or None if undeclared."""
    if _declared(module, result_modules()):
        return "result"
    if _declared(module, EXECUTION_ONLY):
        return "execution"
    if _declared(module, DATA_STAGE):
        return "data"
    return None


def dvc_paths(entries=RESULT_CODE) -> list[str]:
    """The ``dvc.yaml`` dependency paths of ``entries`` (relative to the repository)."""
    return [f"src/netzbench/{entry}" for entry in entries]


def canonical_json(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def seed_key(**parts) -> str:
    """sha256 of the canonical JSON of ``parts``: the per-seed cache key."""
    return hashlib.sha256(canonical_json(parts).encode()).hexdigest()


def source_hash(paths) -> str:
    """sha256 over the relative names and bytes of every ``.py`` file under ``paths``."""
    h = hashlib.sha256()
    for base in paths:
        base = Path(base)
        files = [base] if base.is_file() else sorted(base.rglob("*.py"))
        for f in files:
            if "__pycache__" in f.parts:
                continue
            h.update(f.relative_to(base.parent).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def user_model_path(model_ref: str | None) -> Path | None:
    """The source (module file, or the top package's folder) of a ``package.module:Class`` model."""
    if not model_ref or ":" not in model_ref:
        return None
    top = model_ref.split(":")[0].split(".")[0]
    repository_on_path()
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.origin:
        return None
    origin = Path(spec.origin)
    return origin.parent if origin.name == "__init__.py" else origin


def code_version(model_ref: str | None = None) -> str:
    """Hash of :data:`RESULT_CODE`, plus the user model's source when ``model_ref`` names one."""
    paths = [PACKAGE_DIR / entry for entry in RESULT_CODE]
    user = user_model_path(model_ref)
    return source_hash(paths + ([user] if user is not None else []))


#: the fields of ``meta.json`` that make up the resolved task spec
#: (``metric`` is there only where the dataset's standard metric is not the family's default, so the
#: keys of every other task are what they were before it existed)
TASK_SPEC_FIELDS = ("task", "dataset", "family", "split", "relational", "epochs", "synthetic", "generator",
                    "generator_params", "generator_version", "loader", "loader_sha256", "metric")


def task_spec(meta: dict) -> dict:
    """The resolved task spec recorded by fetch in ``meta.json`` (what training reads about a task)."""
    return {k: meta[k] for k in TASK_SPEC_FIELDS if k in meta}
