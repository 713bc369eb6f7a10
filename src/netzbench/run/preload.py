"""Imported once by the forkserver (and the warm server) so each seed's process starts with torch
loaded and the roster's message-passing layers compiled."""

import shutil
import tempfile

import torch
import torch_geometric  # noqa: F401

from . import worker  # noqa: F401
from ..models import adapters, encoders, gin  # noqa: F401
from ..training import loops, seed  # noqa: F401


def compile_layers() -> None:
    """Build each roster encoder once, so that every seed process forked from here starts with their
    layers compiled. PyG renders, writes and imports a ``propagate`` module for a message-passing class
    the first time one is built (jinja: about 50 ms a class), and a seed process is fresh: each paid it
    again (100 ms of a GAT seed). The generated code is the same wherever it is made; the files go to a
    private folder removed here (the modules stay loaded), and the generator's state is restored."""
    import importlib

    from ..models.roster import BUILTIN_MODELS

    scratch = tempfile.mkdtemp(prefix="netzbench-preload-")
    before, tempfile.tempdir = tempfile.tempdir, scratch
    try:
        with torch.random.fork_rng(devices=[]):
            for ref, _ in BUILTIN_MODELS.values():  # the roster's encoders (a heuristic takes no sizes)
                module, name = ref.split(":")
                try:
                    getattr(importlib.import_module(module), name)(4, 4, 4)
                except Exception:  # noqa: BLE001 - only a head start: a seed that builds it compiles it then
                    pass
    finally:
        tempfile.tempdir = before
        shutil.rmtree(scratch, ignore_errors=True)


compile_layers()
# the blockwise dropout's one check per process (models/dropout.py), made once here for every seed
from ..models import dropout as _dropout  # noqa: E402

_dropout.available(torch.float32)
