"""Reading pickled raw data without running the code a file names.

``pickle.load`` calls whatever callable a pickle names (``__reduce__``), so a
raw file from a download or from someone else's folder could run code as the
user who fetches it. Some raw formats are pickles all the same: Planetoid's
``ind.<name>.*`` (Python-2 pickles of numpy arrays, scipy sparse matrices and
a dict of lists) and ZINC's ``*.pickle`` (lists of dicts of torch tensors).
They are read here by :class:`RestrictedUnpickler`, whose ``find_class``
resolves only an explicit allow-list of globals -- the ones those files hold,
under the module paths old and current numpy/scipy/Python write -- and refuses
anything else with :class:`UnsafePickle` before importing or calling it.
:func:`weights_only_loads` does the same for the ``torch.load`` calls inside
PyG, which retry a refused file with ``weights_only=False``.
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import pickle
import re
from _codecs import encode

from ..checks import DatasetError


class UnsafePickle(DatasetError, pickle.UnpicklingError):
    """A pickled raw file names a global outside the allow-list of its format (it is not loaded)."""

    def __init__(self, file, refused: str, allowed: str):
        self.file, self.refused = file, refused  # the path (or what names the files); "the global <name>", ...
        super().__init__(f"{self.file}: refused to unpickle {refused} (unpickling it could run code; this format "
                         f"holds only {allowed}): the file is corrupt or was tampered with, not loaded")


def _planetoid_globals() -> dict[tuple[str, str], object]:
    import numpy as np
    import scipy.sparse as sp

    try:
        from numpy._core.multiarray import _reconstruct
    except ImportError:  # numpy < 2
        from numpy.core.multiarray import _reconstruct
    allowed = {("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): np.dtype,
               ("collections", "defaultdict"): collections.defaultdict,
               ("__builtin__", "list"): list, ("builtins", "list"): list,
               ("_codecs", "encode"): encode}  # bytes in a protocol-2 pickle written by Python 3
    # the module paths numpy 1 / numpy 2 (and scipy before / after 1.8) write for the same object
    for module in ("numpy.core.multiarray", "numpy._core.multiarray"):
        allowed[(module, "_reconstruct")] = _reconstruct
    for cls in ("csr_matrix", "csc_matrix"):
        for module in ("scipy.sparse", f"scipy.sparse.{cls[:3]}", f"scipy.sparse._{cls[:3]}"):
            allowed[(module, cls)] = getattr(sp, cls)
    return allowed


def _storage_from_bytes(data):
    """``torch.storage._load_from_bytes`` (how a pickled tensor carries its storage), weights only."""
    import torch

    if not isinstance(data, (bytes, bytearray)):
        raise pickle.UnpicklingError(f"a tensor storage must be bytes, not {type(data).__name__}")
    return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)


def _tensor_globals() -> dict[tuple[str, str], object]:
    import torch

    # the tensor-rebuild globals torch's own weights-only unpickler allows for a plain tensor
    return {("torch._utils", "_rebuild_tensor_v2"): torch._utils._rebuild_tensor_v2,
            ("collections", "OrderedDict"): collections.OrderedDict,
            ("torch.storage", "_load_from_bytes"): _storage_from_bytes,
            ("_codecs", "encode"): encode}


#: format -> (its allowed globals, built on first use; what its files hold, for the error message)
ALLOWED = {
    "planetoid": (_planetoid_globals, "numpy arrays, scipy sparse matrices and a dict of lists"),
    "tensors": (_tensor_globals, "torch tensors in lists and dicts"),
}
_RESOLVED: dict[str, dict] = {}


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that resolves only the globals of one format (:data:`ALLOWED`) and no persistent ids."""

    def __init__(self, fh, file, fmt: str, **kwargs):
        super().__init__(fh, **kwargs)
        self.file, self.format = file, fmt
        if fmt not in _RESOLVED:
            _RESOLVED[fmt] = ALLOWED[fmt][0]()
        self.allowed = _RESOLVED[fmt]

    def find_class(self, module: str, name: str):
        # looked up by the names as written in the file: nothing outside the list is ever imported
        try:
            return self.allowed[(module, name)]
        except KeyError:
            raise UnsafePickle(self.file, f"the global {module}.{name}", ALLOWED[self.format][1]) from None

    def persistent_load(self, pid):
        raise UnsafePickle(self.file, f"a persistent id ({str(pid)[:60]!r})", ALLOWED[self.format][1])


def load(path: str | os.PathLike, fmt: str, encoding: str = "ASCII"):
    """The object pickled in ``path``, read with the allow-list of ``fmt`` (:class:`UnsafePickle` otherwise)."""
    with open(path, "rb") as fh:
        return RestrictedUnpickler(fh, path, fmt, encoding=encoding).load()


def load_planetoid(path: str | os.PathLike):
    """A Planetoid pickle ``ind.<name>.<suffix>`` (Python 2: ``latin1`` decodes numpy's byte strings)."""
    return load(path, "planetoid", encoding="latin1")


_TORCH_FLAGS = ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")


@contextlib.contextmanager
def weights_only_loads(files: str | os.PathLike):
    """Every ``torch.load`` inside loads weights only, even one that asks for ``weights_only=False``.

    PyG's ``fs.torch_load`` retries a file that the weights-only load refuses
    with a full unpickle, which would run the file's code; torch's
    ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` (read on every call) turns that retry
    into a second refusal, raised as :class:`UnsafePickle` naming ``files``.
    """
    saved = {k: os.environ.get(k) for k in _TORCH_FLAGS}
    os.environ["TORCH_FORCE_WEIGHTS_ONLY_LOAD"] = "1"
    os.environ.pop("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", None)  # both set is an error in torch
    try:
        yield
    except pickle.UnpicklingError as exc:
        if isinstance(exc, UnsafePickle) or "Weights only load failed" not in str(exc):
            raise  # already named, or a corrupt file rather than a refused one
        found = re.search(r"GLOBAL (\S+)", str(exc))
        refused = f"the global {found.group(1)}" if found else repr(str(exc).splitlines()[0][:120])
        raise UnsafePickle(files, refused, "what torch.load(weights_only=True) allows: tensors, "
                           "containers and plain values") from None
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
