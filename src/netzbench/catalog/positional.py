r"""Node features for a declared node-classification graph that comes without any (``features:``).

Structural features ``[1, log(1 + degree)]`` (training's default for a graph
without ``x``) give nodes of equal degree identical inputs, so labels that
follow communities (a club's factions, a league's conferences, a book's
political leaning) cannot be learnt from them. A ``custom_tasks`` entry may
choose instead:

- ``identity``: one-hot node ids, float32 ``[N, N]`` (at most
  :data:`~netzbench.graphs.features.IDENTITY_LIMIT` nodes): every node its
  own input, so the first layer learns an embedding per node;
- ``laplacian`` (``laplacian:K``, default ``K = 16``): the eigenvectors of the
  symmetric normalised Laplacian :math:`L = I - D^{-1/2} A D^{-1/2}` with the
  ``K`` smallest eigenvalues after the first (the trivial
  :math:`D^{1/2}\mathbf 1` of the largest component), each scaled to unit
  norm with its largest-magnitude entry made positive (an eigenvector's
  sign is arbitrary); zero columns pad a graph with fewer than ``K + 1``
  nodes. Communities show as the low-frequency eigenvectors (spectral
  clustering);
- ``structural``: leave ``x`` out; training computes ``[1, log(1 + degree)]``.

``auto`` (the default) keeps features the files give, and otherwise uses
``identity`` up to :data:`AUTO_IDENTITY_NODES` nodes and ``laplacian``
beyond. Node classification trains on the whole graph (only labels are
held out), so encodings computed from every edge see nothing held out.

Link prediction holds edges out, so encodings from every edge would leak
them (:func:`link_features`): ``identity`` is written at fetch (it uses no
edge), ``laplacian`` only records its ``K`` (``laplacian_k`` in
``graph.npz``) and training computes the eigenvectors from each seed's
training edges; ``auto`` and ``structural`` leave the protocol's choice
(``structural_features``) in place.
"""

from __future__ import annotations

import numpy as np

from ..graphs.features import IDENTITY_LIMIT, LAPLACIAN_K, identity_features, laplacian_eigenvectors

CHOICES = ("auto", "structural", "identity", "laplacian")
#: ``auto`` gives graphs up to this many nodes one-hot identities (N^2 float32 values: 16 MB at 2,000)
AUTO_IDENTITY_NODES = 2000


def parse(choice: str | None) -> tuple[str, int | None]:
    """``(kind, k)`` of a ``features:`` value (``laplacian:32`` -> ``("laplacian", 32)``); ValueError if bad."""
    text = "auto" if choice is None else str(choice).strip()
    kind, _, k = text.partition(":")
    if kind not in CHOICES or (k and (kind != "laplacian" or not k.isdigit() or int(k) < 1)):
        raise ValueError(f"`features` must be one of {', '.join(CHOICES)} (or laplacian:K, K >= 1), got {choice!r}")
    return kind, (int(k) if k else LAPLACIAN_K) if kind == "laplacian" else None


def _identity(arrays: dict, n: int) -> tuple[dict, dict]:
    """``arrays`` with one-hot node ids as ``x``, and the record saying so (refused above the limit)."""
    if n > IDENTITY_LIMIT:
        raise ValueError(f"`features: identity` gives {n} nodes {n} x {n} inputs (limit {IDENTITY_LIMIT} nodes):"
                         " choose laplacian")
    return {**arrays, "x": identity_features(n)}, {"kind": "identity", "dim": n, "source": "one-hot node ids"}


def node_features(arrays: dict, choice: str | None) -> tuple[dict, dict | None]:
    """``(arrays, record)``: ``arrays`` with the chosen ``x`` added where it has none, and what was
    used (``{"kind", "dim", "source"}``; None when the files' own features were kept)."""
    kind, k = parse(choice)
    n = int(arrays["num_nodes"])
    if "x" in arrays and kind == "auto":
        return arrays, None
    if "x" in arrays:
        raise ValueError(f"`features: {choice}` replaces node features, but the files give {np.asarray(arrays['x']).shape[1]}"
                         " per node: drop `features:` to keep them")
    if kind == "auto":
        kind, k = ("identity", None) if n <= AUTO_IDENTITY_NODES else ("laplacian", LAPLACIAN_K)
    if kind == "structural":
        return arrays, {"kind": "structural", "dim": 2, "source": "[1, log(1 + degree)] at training time"}
    if kind == "identity":
        return _identity(arrays, n)
    x = laplacian_eigenvectors(arrays["edge_index"], n, k)
    return {**arrays, "x": x}, {"kind": "laplacian", "dim": k,
                                "source": f"{k} lowest non-trivial eigenvectors of the normalised Laplacian, all edges"}


def link_features(arrays: dict, choice: str | None) -> tuple[dict, dict | None]:
    """``(arrays, record)`` of a link-prediction graph under ``features: choice`` (module docstring);
    ``record`` None where the protocol's structural features stay."""
    kind, k = parse(choice)
    n = int(arrays["num_nodes"])
    if kind in ("auto", "structural"):
        return arrays, None
    if "x" in arrays:
        raise ValueError(f"`features: {choice}` replaces node features, but the files give them: drop `features:`")
    if kind == "identity":
        return _identity(arrays, n)
    return {**arrays, "laplacian_k": np.asarray(k, dtype=np.int64)}, {
        "kind": "laplacian", "dim": k,
        "source": f"{k} lowest non-trivial eigenvectors of the normalised Laplacian of each seed's training edges"}
