"""Knowledge graphs from raw triple files: named triples and OpenKE's numeric ids.

Both give the relational link-prediction layout (canonical train/valid/test
triples, :func:`.pyg_datasets.relational_arrays`):

``triples``  ``train.txt``, ``valid.txt`` (or ``val``/``dev``), ``test.txt``
             (``.tsv`` too), one ``head<TAB>relation<TAB>tail`` per line
             (FB15k-237, WN18RR, most KG releases); lines without a tab are
             split on blanks. Entity and relation ids come from
             ``entities.dict``/``relations.dict`` (``id<TAB>name``) when
             present, else they are numbered in order of first appearance
             over train, valid and test.
``openke``   ``train2id.txt``, ``valid2id.txt``, ``test2id.txt``: the first
             line is the number of triples, then ``head tail relation``
             (numeric ids; note the order). ``entity2id.txt`` /
             ``relation2id.txt`` (count line first) give the entity and
             relation counts, else the largest id + 1. The same content
             saved as ``train.txt``/``valid.txt``/``test.txt`` (PyG's
             WordNet18 download) is read too.

The two are told apart by what the files hold, not only by their names
(:func:`kg_layout`): a train file whose first line is one integer and whose
next line is three integers is OpenKE's layout whatever its name or the
declared format, and the bundle's ``notes["recognised"]`` says so.

A triple listed twice in one split is kept once (counted in ``dropped``, per
split and in all as ``duplicate_edges``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .pyg_datasets import relational_arrays
from .files import Bundle, ReadError, data_files, read_table, read_text

SPLITS = {"train": ("train",), "valid": ("valid", "val", "dev"), "test": ("test",)}


def _split_files(path: Path, fmt: str, names: dict[str, tuple[str, ...]], suffixes: tuple[str, ...]) -> dict:
    files = {p.name: p for p in data_files(Path(path))}
    out = {}
    for split, stems in names.items():
        hit = [files[s + x] for s in stems for x in suffixes if s + x in files]
        if not hit:
            want = " or ".join(s + suffixes[0] for s in stems)
            raise ReadError(fmt, path, f"a {split} file ({want})", f"no such file ({', '.join(sorted(files)[:10])})")
        out[split] = hit[0]
    return out


def _head(path: Path, lines: int = 2) -> list[list[bytes]]:
    """The fields of the first ``lines`` non-blank, non-comment lines of ``path``."""
    out = []
    for line in read_text(path).split(b"\n"):
        if line.strip() and not line.lstrip().startswith(b"#"):
            out.append(line.split())
            if len(out) == lines:
                break
    return out


def _numeric_count_layout(path: Path) -> bool:
    """OpenKE's layout: a line with one integer (the count), then ``head tail relation`` integers."""
    head = _head(path)
    return (len(head) >= 1 and len(head[0]) == 1 and head[0][0].isdigit()
            and (len(head) == 1 or (len(head[1]) == 3 and all(f.isdigit() for f in head[1]))))


def kg_layout(path: str | Path) -> tuple[str, dict[str, Path]] | None:
    """``(format, split files)`` of the knowledge graph under ``path`` read by content, or None.

    ``openke`` when the train file (``train2id.txt``, else ``train.txt``/``.tsv``) starts with a count
    line and numeric ``head tail relation`` triples; ``triples`` when ``train``/``test`` files hold
    anything else.
    """
    path = Path(path)
    for suffixes, names in (((".txt",), {s: tuple(n + "2id" for n in v) for s, v in SPLITS.items()}),
                            ((".txt", ".tsv"), SPLITS)):
        try:
            files = _split_files(path, "any", names, suffixes)
        except ReadError:
            continue
        return ("openke" if _numeric_count_layout(files["train"]) else "triples"), files
    return None


def read_knowledge_graph(path: str | Path, declared: str | None = None) -> Bundle:
    """Read the knowledge graph under ``path`` as what its files hold (:func:`kg_layout`).

    ``declared`` (``triples``/``openke``, or None) is the format the entry names; where the content is
    the other layout, it is read as that and ``notes["recognised"]`` says what was found.
    """
    path = Path(path)
    found = kg_layout(path)
    if found is None:
        fmt = declared or "triples"
        want = "train2id.txt, valid2id.txt, test2id.txt" if fmt == "openke" else "train.txt, valid.txt, test.txt"
        listing = ", ".join(sorted(p.name for p in data_files(path))[:10]) or "no data files"
        raise ReadError(fmt, path, f"split files ({want})", f"no such files ({listing})")
    fmt, files = found
    bundle = read_openke(path, files) if fmt == "openke" else read_triples(path)
    bundle.notes["format"] = fmt
    if declared is not None and declared != fmt:
        what = ("a count line, then numeric 'head tail relation' triples" if fmt == "openke"
                else "'head<TAB>relation<TAB>tail' triples, no count line")
        bundle.notes["recognised"] = (f"declared format {declared!r}, but {files['train'].name} holds {what}: "
                                      f"read as {fmt!r}")
    return bundle


def _dictionary(path: Path, fmt: str) -> dict[str, int] | None:
    """``name -> id`` of an ``id<TAB>name`` file, or None when there is none."""
    if not path.is_file():
        return None
    ids = {}
    for number, line in enumerate(read_text(path).decode("utf-8").split("\n"), 1):
        if not line.strip():
            continue
        parts = line.split("\t") if "\t" in line else line.split()
        if len(parts) != 2 or not parts[0].strip().isdigit():
            raise ReadError(fmt, path, "'id<TAB>name' per line", line.strip(), number)
        ids[parts[1].strip()] = int(parts[0])
    return ids


def _dedupe(triples: np.ndarray) -> tuple[np.ndarray, int]:
    """``triples [m, 3]`` without repeats (first occurrence kept, file order) and how many were dropped."""
    if triples.size == 0:
        return triples, 0
    _, first = np.unique(triples, axis=0, return_index=True)
    keep = np.sort(first)
    return triples[keep], int(len(triples) - len(keep))


def read_triples(path: str | Path) -> Bundle:
    """Read named ``head<TAB>relation<TAB>tail`` triples (see the module docstring)."""
    fmt = "triples"
    files = _split_files(Path(path), fmt, SPLITS, (".txt", ".tsv"))
    folder = files["train"].parent
    entities, relations = _dictionary(folder / "entities.dict", fmt), _dictionary(folder / "relations.dict", fmt)
    fixed = entities is not None and relations is not None
    ent, rel = (entities, relations) if fixed else ({}, {})
    parts, dropped = {}, {}
    for split, file in files.items():
        rows = []
        for number, line in enumerate(read_text(file).decode("utf-8", "replace").split("\n"), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [f.strip() for f in line.split("\t")] if "\t" in line else line.split()
            if len(fields) != 3 or not all(fields):
                raise ReadError(fmt, file, "'head<TAB>relation<TAB>tail'", line.strip(), number)
            h, r, t = fields
            if fixed:
                missing = next((v for v, d in ((h, ent), (t, ent), (r, rel)) if v not in d), None)
                if missing is not None:
                    raise ReadError(fmt, file, "names listed in entities.dict / relations.dict", missing, number)
            else:
                for name, table in ((h, ent), (r, rel), (t, ent)):
                    table.setdefault(name, len(table))
            rows.append((ent[h], rel[r], ent[t]))
        parts[split], dropped[f"duplicate_{split}_triples"] = _dedupe(np.asarray(rows, dtype=np.int64).reshape(-1, 3))
    return _bundle(parts, max(ent.values(), default=-1) + 1, max(rel.values(), default=-1) + 1,
                   dropped, [*files.values(), *([folder / "entities.dict", folder / "relations.dict"] if fixed else [])],
                   {"ids": "entities.dict / relations.dict" if fixed else "order of first appearance (train, valid, test)"})


def _count_file(path: Path, fmt: str, what: str) -> int | None:
    if not path.is_file():
        return None
    first = next((ln for ln in read_text(path).split(b"\n") if ln.strip()), b"")
    if not first.strip().isdigit():
        raise ReadError(fmt, path, f"the number of {what} on line 1", first.decode("utf-8", "replace").strip(), 1)
    return int(first)


def read_openke(path: str | Path, files: dict[str, Path] | None = None) -> Bundle:
    """Read OpenKE ``*2id.txt`` triples (count line, then ``head tail relation``; module docstring);
    ``files``: the split files when they have other names (``train.txt``, ...)."""
    fmt = "openke"
    files = files or _split_files(Path(path), fmt, {s: tuple(n + "2id" for n in names) for s, names in SPLITS.items()},
                                  (".txt",))
    folder = files["train"].parent
    num_entities = _count_file(folder / "entity2id.txt", fmt, "entities")
    num_relations = _count_file(folder / "relation2id.txt", fmt, "relations")
    parts, dropped = {}, {}
    for split, file in files.items():
        declared = _count_file(file, fmt, "triples")
        table = read_table(file, fmt, "'head tail relation' (numeric ids)", columns=3, header=True)
        if len(table.values) != declared:
            raise ReadError(fmt, file, f"{declared} triples (line 1)", f"{len(table.values)} triple lines")
        h, t, r = table.values.T
        for ids, limit, what in ((np.concatenate([h, t]), num_entities, "entity"), (r, num_relations, "relation")):
            if ids.size and (ids.min() < 0 or (limit is not None and ids.max() >= limit)):
                bad = int(np.flatnonzero((ids < 0) | (ids >= (limit or np.inf)))[0]) % len(table.values)
                table.fail(bad, f"{what} ids in [0, {limit})" if limit else f"non-negative {what} ids")
        parts[split], dropped[f"duplicate_{split}_triples"] = _dedupe(np.stack([h, r, t], axis=1))
    every = np.concatenate([p for p in parts.values()])
    n = num_entities if num_entities is not None else int(max(every[:, 0].max(), every[:, 2].max())) + 1
    k = num_relations if num_relations is not None else int(every[:, 1].max()) + 1
    used = [*files.values(), *(p for p in (folder / "entity2id.txt", folder / "relation2id.txt") if p.is_file())]
    return _bundle(parts, n, k, dropped, used, {"ids": "OpenKE ids as in the files"})


def _bundle(parts: dict, num_nodes: int, num_relations: int, dropped: dict, files: list, notes: dict) -> Bundle:
    for split, triples in parts.items():
        if len(triples) == 0:
            raise ReadError("triples", files[0].parent, f"at least one {split} triple", "none")
    triples = {s: (p[:, [0, 2]].T, p[:, 1]) for s, p in parts.items()}
    arrays, counts = relational_arrays(num_nodes, num_relations, triples)
    # a repeated triple is the knowledge graph's duplicate edge; triples (h, r, h) are kept
    dropped = {"duplicate_edges": sum(dropped.values()), **dropped}
    return Bundle(arrays, counts, dropped, files, notes)
