"""Golden histories: a few short cells trained again must give the pinned histories bit for bit.

The cells and how to regenerate the fixture after an intended change: ``tests/golden.py``. These tests
run in the unit tier (marked ``golden``: tiny training, a few seconds in all in one child process under
portable arithmetic), so ``make test-fast`` notices within seconds a change that alters results, and
says which cell, series and epoch moved.
"""

from __future__ import annotations

import pytest

import golden

pytestmark = pytest.mark.golden


@pytest.fixture(scope="module")
def trained() -> dict:
    """The golden cells trained now, all in one child process under portable arithmetic (the unit tier's
    one program start: the test process's torch already chose its kernels)."""
    return golden.train_portable()


def _entry(trained: dict) -> dict:
    found = golden.read_fixture()["capabilities"]
    cap = trained["key"]
    if cap not in found:
        pytest.skip(f"tests/fixtures/golden_histories.json has no histories for this CPU ({cap}; it has "
                    f"{', '.join(sorted(found)) or 'none'}): add them with `PYTHONPATH=src python tests/golden.py`")
    if found[cap].get("made_on", "native") != "native":
        pytest.skip(f"the golden histories of {cap} were made on {found[cap]['made_on']} (tests/test_arithmetic.py "
                    "checks them by emulation): make them natively with `PYTHONPATH=src python tests/golden.py`")
    if found[cap]["torch"] != trained["torch"]:
        pytest.skip(f"the golden histories were made with torch {found[cap]['torch']}, this is {trained['torch']} "
                    "(constraints.txt pins it): regenerate them with `PYTHONPATH=src python tests/golden.py`")
    return found[cap]["cells"]


def moved(name: str, want: dict, epochs: list[int], history: dict[str, list[float]]) -> list[str]:
    """What differs between golden cell ``name``'s pinned entry ``want`` and a history trained now,
    one line per series (empty: bit for bit the same)."""
    lines = []
    if epochs != want["epochs"]:
        lines.append(f"golden cell {name}: evaluated epochs {epochs}, pinned {want['epochs']}")
    pinned = golden.decode(want["history"])
    for series in sorted(set(pinned) | set(history)):
        if series not in history or series not in pinned:
            where = "is missing now" if series not in history else "is new (not pinned)"
            lines.append(f"golden cell {name}: series {series} {where}")
            continue
        old, new = pinned[series], [float(v) for v in history[series]]
        for i, (a, b) in enumerate(zip(old, new)):
            if a.hex() != b.hex():  # bits, not ==: NaN != NaN, and -0.0 == 0.0
                epoch = want["epochs"][i] if i < len(want["epochs"]) else f"#{i + 1}"
                lines.append(f"golden cell {name}: series {series} moved at epoch {epoch}: pinned {a!r} "
                             f"({a.hex()}), now {b!r} ({b.hex()})")
                break
        else:
            if len(old) != len(new):
                lines.append(f"golden cell {name}: series {series} has {len(new)} values, pinned {len(old)}")
    return lines


@pytest.mark.parametrize("name", list(golden.CELLS))
def test_golden_history_is_unchanged(name, trained):
    cells = _entry(trained)
    assert name in cells, f"golden cell {name} is not pinned: regenerate with `PYTHONPATH=src python tests/golden.py`"
    now = trained["cells"][name]
    lines = moved(name, cells[name], now["epochs"], golden.decode(now["history"]))
    assert not lines, ("\n".join(lines) + "\nIf you meant to change results, regenerate the fixture "
                       "(`PYTHONPATH=src python tests/golden.py`, see tests/golden.py) and say why in the commit.")


def test_the_comparison_names_the_cell_series_and_epoch():
    """The message of a moved value, a NaN where a number was, a missing and a new series."""
    want = {"epochs": [2, 4], "history": golden.encode({"train_loss": [1.0, 0.5], "val_acc": [0.25, 0.5],
                                                        "old": [1.0, 1.0]})}
    assert moved("c", want, [2, 4], {"train_loss": [1.0, 0.5], "val_acc": [0.25, 0.5], "old": [1.0, 1.0]}) == []
    lines = moved("c", want, [2, 4], {"train_loss": [1.0, 0.5000000000000001], "val_acc": [float("nan"), 0.5],
                                      "new": [0.0, 0.0]})
    assert lines == [
        "golden cell c: series new is new (not pinned)",
        "golden cell c: series old is missing now",
        "golden cell c: series train_loss moved at epoch 4: pinned 0.5 (0x1.0000000000000p-1), "
        "now 0.5000000000000001 (0x1.0000000000001p-1)",
        "golden cell c: series val_acc moved at epoch 2: pinned 0.25 (0x1.0000000000000p-2), now nan (nan)",
    ]
    assert moved("c", want, [2, 3], {"train_loss": [1.0, 0.5], "val_acc": [0.25, 0.5], "old": [1.0, 1.0]}) == [
        "golden cell c: evaluated epochs [2, 3], pinned [2, 4]"]


def test_every_family_and_a_knowledge_graph_is_pinned():
    from netzbench.catalog.table import TASKS

    families = {golden.CUSTOM_TASKS[t][2]["family"] if t in golden.CUSTOM_TASKS else TASKS[t].family
                for t, *_ in golden.CELLS.values()}
    assert families == {"node_cls", "graph_cls", "graph_reg", "link_pred"}
    assert any(golden.CUSTOM_TASKS.get(t, ("", "", {}))[2].get("format") == "triples" for t, *_ in golden.CELLS.values())
    assert any(train.get("sampling", {}).get("mode") == "neighbour" for *_, train in golden.CELLS.values())
