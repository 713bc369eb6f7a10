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
    "api": 6, "cli_common": 6, "cli_review": 7, "cli": 8,
    "__init__": 9,
}


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


#: the longest a function may be (lines from its ``def`` to its end, its docstring not counted: documentation
#: is not complexity) and the most decision points of its own body (if/elif, loops, except, conditional
#: expressions, comprehension clauses, match cases, asserts, each extra operand of and/or; a nested function
#: is measured on its own)
MAX_FUNCTION_LINES, MAX_BRANCHES = 100, 40
#: functions over a limit, each with why it may be, for now: (module, function) -> reason. Nothing new joins
#: this list; an entry goes when its function is split.
OVER_LIMITS = {
    ("netzbench.params", "validate"):
        "one guard and a one-line error per params key, in the file's order: long but flat; split by section "
        "pending (issue 49)",
    ("netzbench.report.figures.ranks", "plot_critical_difference"):
        "one figure's layout, whose positions feed each other through measured text extents; split pending "
        "(issue 49)",
    ("netzbench.catalog.readers.tool_formats", "read_pajek"):
        "Pajek's sections (*vertices, *arcs, *edges, *arcslist, *edgeslist, *matrix) read in one pass over the "
        "file; split per section pending (issue 49)",
    ("netzbench.study", "run_study"): "the protocol study's rounds over variants; split pending (issue 49)",
    ("netzbench.report.claims", "main_claims"): "one branch per kind of claim; split pending (issue 49)",
    ("netzbench.run.execute", "run_plans"): "executor dispatch and the per-seed cache bookkeeping of a batch; "
                                             "split pending (issue 49)",
    ("netzbench.run.plan", "plan_cell"): "resolve, decide cheaply, key and queue a cell; split pending (issue 49)",
    ("netzbench.training.relational", "train_relational"):
        "result code: a split changes the hash of every per-seed key, so it waits for the next change that "
        "retrains anyway",
}
_DECISIONS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.IfExp, ast.comprehension,
              ast.match_case, ast.Assert)


def _own_nodes(func):
    """The nodes of ``func``'s body, not descending into nested functions, classes or lambdas."""
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def function_size(func) -> tuple[int, int]:
    """(lines, branches) of a function node, as :data:`MAX_FUNCTION_LINES` and :data:`MAX_BRANCHES` count them."""
    lines = func.end_lineno - func.lineno + 1
    first = func.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        lines -= first.end_lineno - first.lineno + 1
    branches = 0
    for node in _own_nodes(func):
        if isinstance(node, _DECISIONS):
            branches += 1 + (len(node.ifs) if isinstance(node, ast.comprehension) else 0)
        elif isinstance(node, ast.BoolOp):
            branches += len(node.values) - 1
    return lines, branches


def _functions():
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield module, node


def test_functions_stay_short_and_plain():
    """Modules may be as long as their concept; a function may not be longer or more branched than the
    limits, except those of OVER_LIMITS, each of which must still be over one (an entry goes with its
    split)."""
    over = {}
    for module, func in _functions():
        lines, branches = function_size(func)
        if lines > MAX_FUNCTION_LINES or branches > MAX_BRANCHES:
            over[module, func.name] = f"{module}.{func.name}: {lines} lines, {branches} branches"
    new = [text for key, text in over.items() if key not in OVER_LIMITS]
    assert not new, (f"over {MAX_FUNCTION_LINES} lines or {MAX_BRANCHES} branches (split them by what they do):\n"
                     + "\n".join(new))
    assert set(OVER_LIMITS) <= set(over), f"within the limits now, drop from OVER_LIMITS: {set(OVER_LIMITS) - set(over)}"


def test_the_limits_count_what_they_say():
    tree = ast.parse('''
def f(xs):
    """A docstring of
    three lines."""
    if xs and not xs[0] or len(xs) > 2:
        return [x for x in xs if x if x > 1]
    for x in xs:
        try:
            pass
        except ValueError:
            pass
    def g():
        if xs:
            pass
    return 1 if xs else 2
''')
    f, g = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    # if, and/or (2 extra operands), comprehension + 2 ifs, for, except, conditional expression: g's if is g's
    assert function_size(f) == (14 - 2, 1 + 2 + 3 + 1 + 1 + 1)  # def to end: 14 lines, 2 of docstring
    assert function_size(g) == (3, 1)


def _private_imports(module: str) -> list[str]:
    """``from <netzbench module> import _name`` in ``module``: a private name of another module."""
    path = MODULES[module]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = _resolve(module, path.name == "__init__.py", node.level, node.module) if node.level else \
            (node.module or "")
        if not base.startswith("netzbench"):
            continue
        found += [f"{module}: from {base} import {a.name}" for a in node.names
                  if a.name.startswith("_") and not a.name.startswith("__") and f"{base}.{a.name}" not in MODULES]
    return found


def test_no_private_name_is_imported_across_modules():
    """A leading underscore says "this module's own": a name another module needs is public in the module
    where it belongs."""
    found = [line for module in MODULES for line in _private_imports(module)]
    assert not found, "\n".join(found)


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
