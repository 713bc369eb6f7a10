"""Test tiers, assigned at collection from what a test's code calls (never from hand-kept lists).

- ``unit``: no training, no subprocess: the loop a developer runs after each change (``make test-fast``);
  the one exception, tests marked ``golden`` (``tests/test_golden.py``), train a few tiny cells in
  this process, about a second in all, so that the fast loop notices a change of results;
- ``train``: trains models in this process or in the executor's worker pool;
- ``process``: starts other programs (``subprocess``, the warm worker server, Ray);
- ``e2e``: runs DVC (``dvc repro``, ``dvc exp run``).

A test's tier is the highest whose triggers occur in its own source, in the tests-folder functions
it names (module helpers, ``helpers.py``) and in the fixtures it uses, followed transitively. The
guard (:func:`guard`) then holds every test to its tier while it runs: a ``unit`` test that reaches
the training loop or starts a process, or a ``train`` test that starts a program, fails and says
which trigger to add, so a missed detection cannot hide in the fast tier.
"""

from __future__ import annotations

import ast
import bisect
import inspect
import io
import tokenize
from functools import lru_cache
from pathlib import Path

TIERS = ("unit", "train", "process", "e2e")
TESTS_DIR = Path(__file__).resolve().parent

#: names that, called or imported by a test, put it in a tier at least
NAMES = {
    "train": {"fit_seed", "train_cell", "run_plans", "run_study", "run_benchmark", "run_seed", "run_seed_plan", "run_controls",
              "train_relational", "train_link_pred", "train_node", "train_node_cls", "train_dgi", "train_graph", "run_quick",
              "misbehaving_workdir"},
    "process": {"subprocess", "Popen", "ray", "multiprocessing", "warm", "WarmServer", "start_server", "ensure_server",
                "warm_server", "executable", "probe_jobs", "run_probes", "estimate_plan", "busy", "train_portable"},
    "e2e": {"dvc"},
}
#: names that count only where called (``train(...)``, not ``make_params(train=...)``)
CALLS = {"train": {"fit", "train"}}
#: CLI commands (first word of ``invoke(main, [...])``) and the tier they need
COMMANDS = {"train": "train", "candidate": "train", "sweep": "train", "protocols": "train", "quick": "train",
            "seeds": "train", "controls": "train",
            "warm": "process", "estimate": "process", "repro": "e2e", "exp": "e2e"}


#: the token types the scan reads
_KEPT = (tokenize.NAME, tokenize.STRING, tokenize.OP)


def _tokens(source: str) -> tuple[set[str], set[str]]:
    """(names, CLI commands) in ``source``: every NAME token, and the first string of each
    ``invoke(..., [...])`` call's argument list."""
    return _scan([t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type in _KEPT])


def _scan(toks: list) -> tuple[set[str], set[str]]:
    """:func:`_tokens` of a list of NAME, STRING and OP tokens."""
    names, commands = set(), set()
    for i, tok in enumerate(toks):
        if tok.type == tokenize.NAME:
            called = i + 1 < len(toks) and toks[i + 1].string == "("
            if tok.string not in CALLS["train"] or called:
                names.add(tok.string)
            if tok.string == "invoke":
                for nxt in toks[i + 1:i + 12]:
                    if nxt.type == tokenize.STRING:
                        commands.add(nxt.string.strip("\"'"))
                        break
        elif tok.type == tokenize.STRING and tok.string.strip("\"'").split(" ")[0] in ("dvc",):
            names.add("dvc")
    return names, commands


@lru_cache(maxsize=None)
def _file(filename: str) -> tuple[list, list[int], dict[int, int]]:
    """A source file tokenised once: its tokens, their line numbers, and each function's first line
    (its first decorator's, as ``co_firstlineno``) -> its last line."""
    source = Path(filename).read_text(encoding="utf-8")
    toks = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type in _KEPT]
    spans = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            spans[min([node.lineno] + [d.lineno for d in node.decorator_list])] = node.end_lineno
    return toks, [t.start[0] for t in toks], spans


def _source_tokens(func) -> tuple[set[str], set[str]] | None:
    """:func:`_tokens` of ``func``'s source (decorators included), from its file's tokens; None when the
    function cannot be found there (a lambda, a function built at run time)."""
    code = getattr(func, "__code__", None)
    if code is None or not Path(code.co_filename).is_file():
        return None
    toks, lines, spans = _file(code.co_filename)
    end = spans.get(code.co_firstlineno)
    if end is None:
        return None
    return _scan(toks[bisect.bisect_left(lines, code.co_firstlineno):bisect.bisect_right(lines, end)])


def _in_tests(obj) -> bool:
    code = getattr(obj, "__code__", None)
    return code is not None and code.co_filename.startswith(_PREFIX)


_PREFIX = str(TESTS_DIR) + "/"


@lru_cache(maxsize=None)
def _own(func) -> tuple[int, frozenset[str]]:
    """(tier index from ``func``'s own source, the names it uses)."""
    found = _source_tokens(func)
    if found is None:
        try:
            source = inspect.getsource(func)
        except (OSError, TypeError):
            return 0, frozenset()
        import textwrap

        found = _tokens(textwrap.dedent(source))
    names, commands = found
    level = max([TIERS.index(t) for t, trig in NAMES.items() if names & trig]
                + [TIERS.index(t) for t, trig in CALLS.items() if names & trig]
                + [TIERS.index(COMMANDS[c]) for c in commands if c in COMMANDS] + [0])
    return level, frozenset(names)


def tier_of(func, module, fixtures=()) -> str:
    """The tier of test function ``func`` of ``module`` using the fixture functions ``fixtures``."""
    return _tier_of(func, module, tuple(fixtures))


@lru_cache(maxsize=None)
def _tier_of(func, module, fixtures: tuple) -> str:
    helpers = __import__("helpers")
    seen, todo, level = set(), [func, *fixtures], 0
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        own, names = _own(f)
        level = max(level, own)
        for name in names:
            for scope in (module, helpers):
                obj = getattr(scope, name, None)
                if inspect.isfunction(obj) and _in_tests(obj):
                    todo.append(obj)
    return TIERS[level]


class TierError(AssertionError):
    pass


def _refuse(what: str, tier: str, trigger: str):
    def refuse(*args, **kwargs):
        raise TierError(f"this test {what} but was put in the {tier!r} tier: add the name it reaches this through "
                        f"to tests/tiers.py ({trigger})")
    return refuse


def guard(monkeypatch, tier: str, training: bool = False) -> None:
    """Hold the running test to ``tier``: below ``train`` the training loop and new processes are
    refused, below ``process`` starting a program is, below ``e2e`` running DVC is. ``training``: the
    training loop is allowed in this process whatever the tier (the golden cells, marked ``golden``,
    train for a few seconds in the unit tier on purpose, in one Python child under portable arithmetic;
    worker processes stay refused)."""
    import multiprocessing.process
    import subprocess
    import sys

    rank = TIERS.index(tier)
    if rank < TIERS.index("train") and not training:
        import netzbench.training.seed as seed_mod
        from netzbench.training import fit as fit_mod, graph_level, link, node, relational  # noqa: F401

        refuse, real = _refuse("trains a model", tier, "NAMES['train']"), fit_mod.fit
        for name, mod in list(sys.modules.items()):  # every module holding the one training loop
            if name.startswith("netzbench.training") and getattr(mod, "fit", None) is real:
                monkeypatch.setattr(mod, "fit", refuse)
        monkeypatch.setattr(seed_mod, "fit_seed", refuse)
    if rank < TIERS.index("train"):
        monkeypatch.setattr(multiprocessing.process.BaseProcess, "start",
                            _refuse("starts a worker process", tier, "NAMES['train']"))
    real_init = subprocess.Popen.__init__

    def popen(self, args, *a, **k):
        argv = [args] if isinstance(args, (str, bytes)) else list(args)
        program = Path(str(argv[0]).split(" ")[0]).name if argv else ""
        if program == "dvc" and rank < TIERS.index("e2e"):
            _refuse("runs DVC", tier, "NAMES['e2e']")()
        golden_child = training and argv and str(argv[0]) == sys.executable  # the golden cells' one child
        if rank < TIERS.index("process") and program not in ("git",) and not golden_child:
            _refuse(f"starts a program ({program})", tier, "NAMES['process']")()
        return real_init(self, args, *a, **k)

    monkeypatch.setattr(subprocess.Popen, "__init__", popen)
