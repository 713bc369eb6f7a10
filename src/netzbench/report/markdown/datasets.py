"""REPORT.md's dataset table: each task's dataset card in figures, and its warnings.

The figures come from the run records (``card``: what ``data/<task>/card.json``
held when the cell was planned, :func:`netzbench.catalog.card.card_summary`),
so the table needs no data and follows the records it reports. Its wording is section 1's
(``templates/protocol.md.j2``).
"""

from __future__ import annotations

from .templating import render

#: (card key, column head, format)
COLUMNS = (("graphs", "graphs", "{:,}"), ("nodes", "nodes", "{:,}"), ("edges", "edges", "{:,}"),
           ("classes", "classes", "{}"), ("majority_share", "majority", "{:.3f}"),
           ("edge_homophily", "edge hom.", "{:.2f}"), ("adjusted_homophily", "adj. hom.", "{:.2f}"),
           ("label_informativeness", "LI", "{:.2f}"))


def task_cards(report) -> dict[str, dict]:
    """The card summary of each task (the first of its cells' records that carries one)."""
    out = {}
    for task in report.tasks:
        for cell in report.cells.get(task, {}).values():
            if cell.get("card"):
                out[task] = cell["card"]
                break
    return out


def dataset_table(report) -> list[str]:
    """``- **Datasets**`` and its table (empty when no record carries a card)."""
    cards = task_cards(report)
    shown = [c for c in COLUMNS if any(c[0] in card for card in cards.values())]
    rows = [(task, [fmt.format(card[key]) if card.get(key) is not None else "" for key, _, fmt in shown],
             ("; ".join(card.get("warnings", [])) or "none").replace("|", "/"))
            for task in report.tasks if (card := cards.get(task)) is not None]
    return render("protocol", "dataset_table", heads=[head for _, head, _ in shown], rows=rows)
