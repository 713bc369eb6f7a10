"""Class labels of a user's dataset as the contiguous classes ``0..C-1``, with missing codes left out.

Wherever class labels enter a custom task (a declared format's reader, a Python loader called once),
:func:`relabel` maps them once more from their original values (a reader's ``label_mapping`` undone
first), so that:

- the classes are ``0..C-1`` in sorted order of the original values (numeric order when all are
  numbers), whatever those are: strings, ``-1/1``, ``1..4`` (read as is, an empty class 0 the model
  must output and the card counts), ``0, 2, 5``; ``meta.json``'s ``label_mapping`` (class index ->
  original value) and the dataset card say which is which;
- a *missing* code is no class: a node whose label is missing gets ``y = -1``, which every split
  leaves out (:func:`netzbench.training.splits.stratified_node_split`; masks given with the data lose
  it here), and a graph whose label is missing is left out of the collection. The codes are the
  task's declared ``missing:`` (one value or a list; ``missing: []`` declares none and so turns
  recognition off) or, when it declares none, those recognised in the file: texts that say missing
  (:data:`MISSING_TEXT`) and the numeric codes of :data:`MISSING_CODES` where they stand apart from
  the other labels (``9`` beside ``1..4``, a survey's "no answer"; not ``9`` in ``0..9``, a class).
  ``meta.json``'s ``label_missing`` records the codes, how they were found and how many nodes or
  graphs they left out, so the user sees what the benchmark did not score.

A label that is NaN and not a missing code stops fetch (:class:`LabelError`): a class cannot be NaN.
"""

from __future__ import annotations

import numpy as np

#: label texts read as missing (compared after strip and lower-case)
MISSING_TEXT = frozenset({"", "na", "n/a", "nan", "null", "none", "?", "missing", "unknown", "-"})
#: numeric codes read as missing when they stand apart from the other labels (survey coding: 9, 99, ...)
MISSING_CODES = (9, 99, 999, -9, -99, -999)
#: the layout of a graph collection (:mod:`netzbench.graphs.collection`): which arrays hold a row per what
_PER_GRAPH, _PER_NODE = ("y", "split"), ("x",)


class LabelError(ValueError):
    """Labels that cannot be made classes (said to the user with the task's name by the caller)."""


def _key(value) -> str:
    """A label as compared with a missing code or another label: whole numbers as integers (``9``,
    ``9.0`` and ``"9"`` are one value), other values as their stripped text."""
    if isinstance(value, (bytes, np.bytes_)):
        value = value.decode("utf-8", "replace")
    text = str(value).strip()
    number = _number(text)
    return str(int(number)) if number is not None and number == round(number) else text


def _number(value) -> float | None:
    """The label as a finite number where it is one (for numeric order), else None."""
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return number if np.isfinite(number) else None


def _plain(value):
    """A label as JSON keeps it: numpy scalars as Python ones, whole floats as ints."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def recognised_missing(values: list) -> list:
    """The values among ``values`` (the distinct original labels) that say "missing" without being
    declared: :data:`MISSING_TEXT`, and a code of :data:`MISSING_CODES` more than one away from every
    other label when all labels are whole numbers (a code inside the range of the classes is a class)."""
    found = [v for v in values if isinstance(v, str) and v.strip().lower() in MISSING_TEXT]
    rest = [v for v in values if v not in found]
    numbers = {_key(v): _number(v) for v in rest}
    if not rest or any(n is None or n != round(n) for n in numbers.values()):
        return found
    for code in MISSING_CODES:
        others = sorted(n for n in numbers.values() if n != code)
        if code in numbers.values() and len(others) >= 2 and not others[0] - 1 <= code <= others[-1] + 1:
            found += [v for v in rest if _number(v) == code]
    return found


def _classes(kept: list) -> tuple[dict, list]:
    """``(key -> class index, class index -> original value)`` of the distinct labels ``kept``: sorted
    numerically when all are numbers (``"1"``, ``1`` and ``1.0`` are one class), else as text."""
    if all(_number(v) is not None for v in kept):
        classes: dict[str, int] = {}
        originals: list = []
        for v in sorted(kept, key=_number):
            if _key(v) not in classes:
                classes[_key(v)] = len(originals)
                originals.append(_plain(v))
        return classes, originals
    originals = sorted({_key(v) for v in kept})
    return {t: i for i, t in enumerate(originals)}, originals


def contiguous(labels, missing=None) -> tuple[np.ndarray, dict | None, dict | None]:
    """``(y, mapping, missing_record)`` of the original ``labels`` (one per node or graph; None: an item
    known to be unlabelled).

    ``y``: int64 classes ``0..C-1`` (:func:`_classes`), ``-1`` where the label is missing; ``mapping``:
    class index (str) -> original value, None when the labels were ``0..C-1`` already and none is
    missing; ``missing``: the declared codes (a value or a list; ``[]``: none; None: recognise them,
    :func:`recognised_missing`); ``missing_record``: ``{"codes", "found": "declared"|"recognised",
    "count"}``, None when no label is missing. Raises :class:`LabelError` for a NaN that is no code.
    """
    labels = ["nan" if isinstance(v, float) and np.isnan(v) else v
              for v in np.asarray(labels, dtype=object).reshape(-1).tolist()]  # one NaN value, not many
    values = [v for v in dict.fromkeys(labels) if v is not None]
    if missing is None:
        codes, how = recognised_missing(values), "recognised"
    else:
        declared = {_key(v) for v in (missing if isinstance(missing, (list, tuple)) else [missing])}
        codes, how = [v for v in values if _key(v) in declared], "declared"
    gone = {_key(v) for v in codes}
    is_missing = np.asarray([v is None or _key(v) in gone for v in labels], dtype=bool)
    kept = [v for v in values if _key(v) not in gone]
    if any(_key(v).lower() in ("nan", "inf", "-inf") for v in kept):
        raise LabelError("class labels contain NaN or infinite values: declare them missing (`missing: nan`) "
                         "or fix the file")
    classes, originals = _classes(kept)
    y = np.asarray([-1 if m else classes[_key(v)] for v, m in zip(labels, is_missing)], dtype=np.int64)
    record = None
    if is_missing.any():
        record = {"codes": sorted({_plain(v) for v in codes}, key=str), "found": how,
                  "count": int(is_missing.sum())}
    identity = all(_number(o) == i for i, o in enumerate(originals))
    mapping = None if identity and record is None else {str(i): o for i, o in enumerate(originals)}
    return y, mapping, record


def originals(y: np.ndarray, mapping: dict | None) -> np.ndarray:
    """The original label values of classes ``y`` under a reader's ``mapping`` (index -> value); ``y``
    itself where there is none. A negative class (already missing) becomes None (missing)."""
    y = np.asarray(y).reshape(-1)
    if not mapping:
        return y
    return np.asarray([mapping[str(int(c))] if c >= 0 else None for c in y], dtype=object)


def keep_graphs(arrays: dict, keep: np.ndarray) -> dict:
    """A graph collection's arrays without the graphs where ``keep`` is False: their nodes, edges,
    labels and split entries (by the collection's layout; another array by its first axis, per graph,
    node or edge, in that order)."""
    node_ptr, edge_ptr = np.asarray(arrays["node_ptr"]), np.asarray(arrays["edge_ptr"])
    nodes, edges = np.diff(node_ptr), np.diff(edge_ptr)
    node_keep, edge_keep = np.repeat(keep, nodes), np.repeat(keep, edges)
    out = {"node_ptr": np.concatenate([[0], np.cumsum(nodes[keep])]).astype(node_ptr.dtype),
           "edge_ptr": np.concatenate([[0], np.cumsum(edges[keep])]).astype(edge_ptr.dtype)}
    for key, value in arrays.items():
        value = np.asarray(value)
        if key in out:
            continue
        if key == "edge_index":  # local node ids per graph: unchanged
            out[key] = value[:, edge_keep]
        elif key in _PER_GRAPH or (key not in _PER_NODE and value.ndim and len(value) == len(keep)):
            out[key] = value[keep]
        elif key in _PER_NODE or (value.ndim and len(value) == len(node_keep)):
            out[key] = value[node_keep]
        elif value.ndim and len(value) == len(edge_keep):
            out[key] = value[edge_keep]
        else:
            out[key] = value
    return out


def relabel(arrays: dict, family: str, mapping: dict | None = None, missing=None) -> tuple[dict, dict | None,
                                                                                             dict | None]:
    """``(arrays, mapping, missing_record)``: the class labels of ``arrays`` (a ``node_cls`` graph or a
    ``graph_cls`` collection; other families and multi-label targets as they are) made contiguous from
    their original values (``mapping``: the reader's class index -> original value, when it mapped them
    already) with the ``missing`` codes left out (:func:`contiguous`): a node's label ``-1`` and the node
    out of the masks given with the data, a graph out of the collection. Raises :class:`LabelError`."""
    if family not in ("node_cls", "graph_cls") or "y" not in arrays:
        return arrays, mapping, None
    y = np.asarray(arrays["y"])
    if y.ndim > 1 and y.shape[1] != 1:
        return arrays, mapping, None  # multi-label targets: floats with NaN for missing, not classes
    new_y, new_mapping, record = contiguous(originals(y, mapping), missing)
    if mapping is None and new_mapping is None and record is None:
        return arrays, None, None  # 0..C-1 as read: the arrays stay byte for byte
    out = {**arrays, "y": new_y}
    if record is not None and family == "node_cls":
        for name in ("train_mask", "val_mask", "test_mask"):
            if name in out:
                m = np.asarray(out[name], dtype=bool)
                out[name] = (m.reshape(len(new_y), -1) & (new_y >= 0)[:, None]).reshape(m.shape)
    elif record is not None:
        out = keep_graphs(out, new_y >= 0)
    return out, new_mapping, record
