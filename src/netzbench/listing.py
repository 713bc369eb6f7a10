"""The tables ``netzbench tasks`` and ``netzbench datasets`` print: their rows, aligned columns, short cells."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import click


def task_rows(epochs: Mapping[str, int]) -> list[dict]:
    """Every catalogue task, by id: category, family, dataset, its epochs (``epochs``: the ``train.epochs``
    overrides of a params file), whether its data must be downloaded, split, whether the paper has it."""
    from .catalog.table import DATASETS, TASKS

    rows = []
    for tid, t in sorted(TASKS.items()):
        ds = DATASETS[t.dataset]
        rows.append({
            "id": tid, "category": ds.category, "family": t.family, "dataset": t.dataset,
            "epochs": int(epochs.get(tid, t.epochs)), "epochs_source": "params" if tid in epochs else "catalogue",
            "needs_download": ds.needs_download,
            "split": t.split, "in_paper": t.in_paper,
        })
    return rows


def obtainable(ds, mirror: Path | None) -> str:
    """How the dataset can be obtained here: synthetic, builtin, mirror, not in mirror, or download."""
    if ds.synthetic:
        return "synthetic"
    if not ds.needs_download:
        return "builtin"
    if mirror is not None:
        folder = mirror / (ds.mirror or ds.id)
        for src in ds.sources:
            if src.in_mirror and all((folder / f.mirror_path).is_file() for f in src.files):
                return "mirror"
        return "not in mirror"
    return "download"


def dataset_rows(mirror: Path | None, data_root: str | Path = "data") -> list[dict]:
    """Every catalogue dataset, by category and id, with its sources, licence, size (of the processed data
    in ``data_root``, None until fetched), recorded size (:mod:`netzbench.catalog.sizes`) and how it can be
    obtained here (:func:`obtainable`)."""
    from .catalog.sizes import SIZES
    from .catalog.table import DATASETS

    rows = []
    for did, ds in sorted(DATASETS.items(), key=lambda kv: (kv[1].category, kv[0])):
        meta = Path(data_root) / did / "meta.json"
        size = json.loads(meta.read_text()).get("counts") if meta.is_file() else None
        rows.append({
            "id": did, "name": ds.name, "category": ds.category, "families": list(ds.families),
            "sources": [{"url": s.url, "kind": s.kind, "format": s.format} for s in ds.sources],
            "license": ds.license, "citation": ds.citation, "in_paper": ds.in_paper, "size": size,
            "recorded_size": SIZES.get(did),  # catalog/sizes.py: what netzbench estimate's stand-in has
            "obtainable": obtainable(ds, mirror),
            # the metric its authors score it by (None: the family's default) and who says so
            "metric": ds.metric, "metric_source": ds.metric_source,
        })
    return rows


def print_table(header: list[str], rows: list[list[str]], right: frozenset[int] = frozenset()) -> None:
    """Columns as wide as their longest cell (``right``: right-aligned column indices); the last is not padded."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]

    def line(cells) -> str:
        out = [str(c).rjust(w) if i in right else str(c).ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(out).rstrip()

    click.echo(line(header))
    click.echo("-" * len(line(header)))
    for row in rows:
        click.echo(line(row))


def size_text(counts: dict | None) -> str:
    """``2708 nodes, 5278 edges`` / ``188 graphs`` from a meta.json's counts; ``-`` if not fetched."""
    if not counts:
        return "-"
    for key, unit in (("num_graphs", "graphs"), ("num_nodes", "nodes")):
        if key in counts:
            text = f"{counts[key]} {unit}"
            if unit == "nodes" and "num_edges" in counts:
                text += f", {counts['num_edges']} edges"
            return text
    return "-"


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
