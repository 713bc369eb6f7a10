"""A seed job: one unit of training (a seed, or a seed x search trial) and how to run it.

:func:`.plan.plan_cell` makes a :class:`Job` per uncached unit; the executors
place it (:meth:`Job.placed`: its index in the batch, the scratch folder) and
:func:`.worker.run_seed` runs it. A job is frozen: every later addition is a
copy made with :func:`dataclasses.replace`, so what the planner wrote is what
the worker reads, whichever executor carried it.

It travels three ways: pickled to a pool worker or a Ray task, and as JSON
to the warm server (:meth:`to_wire`, :meth:`from_wire`). Over the wire only
plain values cross: a job holding a model object (the Python API) or shipped
bytes (Ray) cannot, and runs in the stage's own pool instead.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields, replace
from typing import Any

from . import wire


@dataclass(frozen=True)
class Job:
    """One unit of training. ``spec`` is what is computed, the rest is how and where."""

    #: what the job computes: task, task_spec, model, model_args, hp, protocol, seed -- exactly what the
    #: per-seed key hashes besides the data and the code (:mod:`netzbench.identity`)
    spec: dict
    #: index of the search trial (0 without a search): ``(spec["seed"], trial)`` names the unit
    trial: int
    #: the processed task folder (``data/<task>/``, absolute)
    data_dir: str
    #: the task's ``meta.json``
    meta: dict
    #: the planning process's working directory and import path: workers forked from a long-lived
    #: server take them over (a user model importable here is importable there)
    cwd: str
    sys_path: list[str]
    #: intra-op torch threads (``exec.threads``, part of the key)
    threads: int
    #: ``cpu``, or the resolved accelerator type (``cuda``, part of the key)
    device: str
    #: ``exec.timeout_s`` and ``exec.max_rss_gb``; None is no limit
    timeout_s: float | None
    max_rss_gb: float | None
    #: ``exec.arithmetic``: ``native`` or ``portable``
    arithmetic: str
    #: which of :func:`.execute.run_plans`' plans the job belongs to (its results go back there)
    plan: int = 0
    #: position in the executor's batch (None until an executor placed it): epochs are reported under it
    job_index: int | None = None
    #: the stage's scratch folder for the seed's temporary files (pool and warm workers)
    tmp_dir: str | None = None
    #: a model defined in memory (a :class:`~netzbench.models.registry.ModelSpec`, Python API only)
    model_spec: Any = None
    #: the task's ``graph.npz``, shipped through Ray's object store (workers without the data folder)
    data_bytes: bytes | None = None

    def placed(self, job_index: int, tmp_dir: str | None = None) -> Job:
        """This job at ``job_index`` of an executor's batch, its temporary files in ``tmp_dir``."""
        return replace(self, job_index=job_index, tmp_dir=tmp_dir if tmp_dir is not None else self.tmp_dir)

    def to_wire(self) -> dict:
        """The job as the warm server reads it (plain values; :class:`.wire.Unencodable` when it holds a
        model object or shipped bytes, which only a pickle carries)."""
        for name in _LOCAL_ONLY:
            if getattr(self, name) is not None:
                raise wire.Unencodable(f"$.{name}: a job with a {name} runs only where it can be pickled to")
        return {name: getattr(self, name) for name in WIRE_FIELDS}

    @classmethod
    def from_wire(cls, message) -> Job:
        """The job of a frame :meth:`to_wire` wrote (:class:`.wire.ProtocolError` for anything else; a
        field with a default may be left out). The fields are the keys a job had as a plain dict, so
        a stage started before jobs had a type is still understood by a newer server (``candidate``: the
        old name of ``trial``)."""
        if type(message) is not dict:
            raise wire.ProtocolError(f"a job is a JSON object, got {type(message).__name__}")
        if "candidate" in message and "trial" not in message:
            message = {("trial" if k == "candidate" else k): v for k, v in message.items()}
        unknown = set(message) - set(WIRE_FIELDS)
        missing = set(_REQUIRED) - set(message)
        if unknown or missing:
            raise wire.ProtocolError(f"not a job: unknown fields {sorted(unknown)}, missing {sorted(missing)}")
        return cls(**message)


#: fields only a pickle carries (a model object, bytes)
_LOCAL_ONLY = ("model_spec", "data_bytes")
#: the fields that cross to the warm server
WIRE_FIELDS = tuple(f.name for f in fields(Job) if f.name not in _LOCAL_ONLY)
_REQUIRED = tuple(f.name for f in fields(Job) if f.default is MISSING)
