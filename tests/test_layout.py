"""The package's shape: dependencies flow one way, no import circles, no oversized modules.

Every ``import`` of a netzbench module is counted, at module level or inside a
function (a lazy import is still a dependency). Units are the top-level
modules and packages of ``src/netzbench``; each has a layer, and a unit may
import only units of strictly lower layers (or itself).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers import REPO

SRC = REPO / "src" / "netzbench"

#: unit -> layer. Foundations first; the facade (``netzbench/__init__``) may import anything.
LAYERS = {
    "errors": 0, "families": 0, "paths": 0, "protocol": 0,
    "stats": 1, "graphs": 1, "params_file": 1, "records": 1, "identity": 1,
    "synthetic": 2, "models": 2, "params": 2,
    "catalog": 3, "training": 3, "model_traits": 3, "settings": 3,
    "run": 4, "report": 4, "readers": 4,
    "config": 5, "study": 5, "seed_plan": 5, "structure_controls": 5, "quick": 5, "console": 5, "listing": 5,
    "api": 6, "cli_common": 6, "cli_review": 7, "cli": 8, "report_server": 9,
    "__init__": 10,
}
MAX_LINES = 500


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports_of(module: str) -> set[str]:
    """The netzbench modules ``module`` imports (``from pkg import sub`` counts as ``pkg.sub``)."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module) if node.level else (node.module or "")
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:  # an attribute of a module: the module
                name = name.rpartition(".")[0]
            if name.startswith("netzbench") and name != module:
                found.add(name)
    return found


GRAPH = {m: imports_of(m) for m in MODULES}


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_unit_has_a_layer():
    assert {unit(m) for m in MODULES} == set(LAYERS), "give new top-level modules a layer in LAYERS"


def test_dependencies_flow_down():
    upward = []
    for module, targets in GRAPH.items():
        for target in targets:
            a, b = unit(module), unit(target)
            if a != b and a != "__init__" and LAYERS[b] >= LAYERS[a]:
                upward.append(f"{module} -> {target} (layer {LAYERS[a]} -> {LAYERS[b]})")
    assert not upward, "\n".join(upward)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    assert _cycles(GRAPH) == []


def test_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_resolution_of_relative_imports():
    assert "netzbench.graphs.layout" in GRAPH["netzbench.run.plan"]
    assert "netzbench.records" in GRAPH["netzbench.run.plan"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_oversized_module(module):
    n = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{module}: {n} lines; split it by concept"


def test_stats_and_report_know_nothing_of_torch():
    for module, path in MODULES.items():
        if unit(module) in ("stats", "report", "params", "settings", "records", "identity", "graphs", "catalog"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
            names = {a.name for n in top for a in n.names} | {getattr(n, "module", None) or "" for n in top}
            assert not any(n.split(".")[0] in ("torch", "torch_geometric") for n in names), module


#: file names that occur in more than one package because both modules hold the same concept, one layer each
SAME_CONCEPT = {
    "baselines.py": "the baseline comparison: computed (report/) and written (report/markdown/)",
    "comparisons.py": "the paired comparisons: computed and written",
    "protocol.py": "the protocol: its switches (netzbench/) and REPORT.md's protocol section",
    "ranks.py": "ranks across tasks: the statistics (stats/) and their figures",
    "dgi.py": "Deep Graph Infomax: the model (models/) and its training (training/)",
    "networks.py": "Netzschleuder-style networks: the catalogue entries and their processor",
    "pyg_misc.py": "the miscellaneous PyG datasets: the catalogue entries and their processors",
    "questions.py": "the three questions (controls, tuning budgets, seed rounds): their facts and their section",
}


def test_a_module_name_names_one_concept():
    by_name: dict[str, list[str]] = {}
    for path in SRC.rglob("*.py"):
        if path.name != "__init__.py":
            by_name.setdefault(path.name, []).append(str(path.relative_to(SRC)))
    twice = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    assert set(twice) <= set(SAME_CONCEPT), {n: p for n, p in twice.items() if n not in SAME_CONCEPT}


# ----------------------------------------------------------------------------- docs/architecture.md's tables

ARCHITECTURE = REPO / "docs" / "architecture.md"


def _table(heading: str) -> list[list[str]]:
    """The rows (cells, stripped) of the first Markdown table after ``heading`` in docs/architecture.md."""
    text = ARCHITECTURE.read_text(encoding="utf-8").split(heading, 1)[1]
    rows = [line for line in text.splitlines() if line.startswith("|")]
    start = next(i for i, line in enumerate(text.splitlines()) if line.startswith("|"))
    block = []
    for line in text.splitlines()[start:]:
        if not line.startswith("|"):
            break
        block.append([c.strip() for c in line.strip().strip("|").split("|")])
    assert rows, heading
    return [r for r in block[2:]]  # past the header and its rule


def _units(cell: str) -> list[str]:
    """The unit names a table cell lists: `stats/` -> stats, `errors.py` -> errors."""
    import re

    return [name.rstrip("/").removesuffix(".py") for name in re.findall(r"`([^`]+)`", cell)]


def _unit_imports(names) -> set[str]:
    return {unit(t) for m in MODULES if unit(m) in names for t in GRAPH[m]} - set(names)


def test_the_layer_tables_of_architecture_md_are_the_packages():
    """Both tables name every unit with its layer in LAYERS (which test_every_unit_has_a_layer holds to the
    package's modules); where the second lists what a unit imports today, that is what it imports."""
    layers = {}
    for layer, modules, *_ in _table("## Layers"):
        for name in _units(modules):
            assert name not in layers, f"{name} is listed twice in the layer table"
            layers[name] = int(layer)
    assert layers == LAYERS, ("docs/architecture.md's layer table and tests/test_layout.py's LAYERS differ: "
                              f"{sorted(set(layers.items()) ^ set(LAYERS.items()))}")
    seen = {}
    for units, layer, imports, _ in _table("Per package, what it may build on"):
        names = _units(units)
        for name in names:
            seen[name] = int(layer)
        if imports == "nothing of netzbench":
            assert not _unit_imports(names), (units, sorted(_unit_imports(names)))
        elif _units(imports):
            assert sorted(_units(imports)) == sorted(_unit_imports(names)), \
                f"{units} imports {sorted(_unit_imports(names))} today; docs/architecture.md says {imports}"
    assert seen == LAYERS, sorted(set(seen.items()) ^ set(LAYERS.items()))
