"""REPORT.md's dataset table: each task's dataset card in figures, and its warnings.

The figures come from the run records (``card``: what ``data/<task>/card.json``
held when the cell was planned, :func:`netzbench.catalog.card.card_summary`),
so the table needs no data and follows the records it reports.
"""

from __future__ import annotations

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
    if not cards:
        return []
    shown = [c for c in COLUMNS if any(c[0] in card for card in cards.values())]
    L = ["- **Datasets** (their cards: `netzbench card <task>`; edge/adjusted homophily and label "
         "informativeness as in Platonov et al. 2023; a warning is a failed split audit):", "",
         "  | task | " + " | ".join(head for _, head, _ in shown) + " | warnings |",
         "  |---|" + "---:|" * len(shown) + "---|"]
    for task in report.tasks:
        card = cards.get(task)
        if card is None:
            continue
        values = [fmt.format(card[key]) if card.get(key) is not None else "" for key, _, fmt in shown]
        warnings = "; ".join(card.get("warnings", [])) or "none"
        L.append(f"  | `{task}` | " + " | ".join(values) + f" | {warnings.replace('|', '/')} |")
    return L + [""]
