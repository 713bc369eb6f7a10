"""The tables ``netzbench tasks`` and ``netzbench datasets`` print: aligned columns, short cells."""

from __future__ import annotations

import click


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
