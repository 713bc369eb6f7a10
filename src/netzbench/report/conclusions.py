r"""Every conclusion the report states, and the protocols under which it holds.

A **claim** is one statement REPORT.md makes about the main run, recomputed under every protocol
variant of the protocol study (``reports/protocol_study.json``, :mod:`netzbench.study`): the
other protocol (``strict``) and the paper protocol with one switch set strict. Kinds and what
counts as *the same claim* under a variant:

``best_model`` (per task), ``gnn_vs_baseline``, ``gnn_vs_structure_free``, ``structure_only_vs_free`` (per task),
``significant_pair`` (per task and pair), ``mean_rank_order`` (per pair of ranked models), ``friedman``,
``candidate`` (per task and roster model): :mod:`.claims` defines each and its outcome. A claim is judged
on what it names: under a variant it holds only where the models it names are again the ones it is
about (the same best GNN and best baseline, say) and the outcome is the same; a variant in which another
model is the best fails it, whatever that model's verdict.

How: a variant's seed values per (task, model) -- the study stores its headline's value at the
final epoch for each seed, under that variant's own headline (a link task may be ROC-AUC under
one variant and MRR under another) -- become a :class:`~netzbench.report.BenchmarkReport` of
one-epoch histories with the main report's options and baseline kinds, and the claims are read
from its :meth:`~netzbench.report.BenchmarkReport.pairwise`,
:meth:`~netzbench.report.BenchmarkReport.baseline_comparison` and
:meth:`~netzbench.report.BenchmarkReport.friedman`: the statistics are the main report's own code,
nothing is re-implemented. For the across-task claims a switch that cannot move a task (the study
does not run it there) leaves that task at its paper-protocol values.

Seeds: ``paper`` and ``strict`` run every seed, so a claim is compared with the main run's
directly. A single-switch variant may run on the first seeds only (``variant_seeds``, seeds
:math:`S_v`); it is compared with the paper protocol **recomputed on** :math:`S_v`:
let :math:`c` be the main claim, :math:`c_0(S_v)` the paper protocol's claim on :math:`S_v` and
:math:`c_v(S_v)` the variant's. Then the claim

- **holds** under the variant when :math:`c_0(S_v) = c = c_v(S_v)`,
- **fails** when :math:`c_0(S_v) = c \ne c_v(S_v)`: the switch changes it,
- is **undecided** when :math:`c_0(S_v) \ne c`: on those seeds the paper protocol itself does not
  make the claim, so the variant can neither confirm nor refute it (fewer seeds, not the switch);
- is **not run** when a cell the claim depends on has no value under the variant (a task or model
  the study does not cover).

A claim's ``status``: ``protocol_dependent`` (fails under the other protocol), ``untested`` (not
run there), ``switch_dependent`` (holds under both protocols, fails under a single switch) or
``robust``. Without a study, or with a stale one (:func:`.reproduction.study_effects`), every
claim holds under the main protocol only, the other protocol listed as not run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .benchmark import BenchmarkReport
from .claims import (KIND_WORDS, KINDS, SELECTED, SELECTED_KINDS, STATUSES, Claim, State, baseline_outcome, claim_id, describe,
                     main_claims, outcome, state_of)

__all__ = ["KINDS", "KIND_WORDS", "SELECTED", "STATUSES", "Claim", "State", "Variant", "baseline_outcome", "claim_id",
           "collect", "describe", "judge", "main_claims", "outcome", "state_of", "study_variants", "variant_values"]


# ----------------------------------------------------------------- the variants of the protocol study
@dataclass(frozen=True)
class Variant:
    """A protocol variant's :class:`State` on its seeds, and the paper protocol's on the same seeds
    (``base``; None when the variant ran every seed)."""

    name: str
    seeds: list[int]
    tasks: frozenset[str]  # the tasks the study ran it on (per-task claims count there only)
    state: State
    base: State | None


def seed_text(seeds: Sequence[int]) -> str:
    """``0–2`` for a run of consecutive seeds, else ``0, 3, 5``."""
    seeds = list(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _switch_variant(name: str) -> bool:
    return "=" in name  # ``switch=value``: the paper protocol with one switch set strict


def variant_order(study: dict, tasks: Sequence[str]) -> list[str]:
    """The study's variants other than ``paper``: ``strict``, then the single switches in the order
    the tasks list them."""
    names: list[str] = []
    for task in tasks:
        entry = study["tasks"].get(task)
        if entry is None:
            continue
        switches = list(entry.get("switches") or [])
        rank = {n: (n != "strict", switches.index(n.partition("=")[0]) if n.partition("=")[0] in switches
                    else len(switches), n) for n in entry["variants"] if n != "paper"}
        names += [n for n in sorted(rank, key=rank.get) if n not in names]
    return sorted(names, key=lambda n: n != "strict")


def _headline(entry: dict, name: str, info) -> tuple[str, str, float | None]:
    """The variant's headline series, direction and constant predictor's score: the study's per-variant
    ``headlines`` where it records them, else the task's, else the main run's (the constant: the study's
    only, None where it records none)."""
    own = (entry.get("headlines") or {}).get(name) or {}
    return (own.get("metric") or entry.get("metric") or info.metric,
            own.get("direction") or entry.get("direction") or info.direction, own.get("constant"))


def variant_values(report, study: dict, name: str, seeds: list[int]) -> tuple[dict, dict]:
    """``(final[task][model] over seeds, headlines[task])`` of variant ``name``: the study's values
    (those over all the study's seeds picked at ``seeds``), a task the switch cannot move at its
    paper-protocol values, NaN where the study has none."""
    all_seeds = list(study["seeds"])
    if not set(seeds) <= set(all_seeds):
        raise ValueError(f"protocol study: seeds {seeds} of variant {name} are not all among its seeds {all_seeds}")
    pick = [all_seeds.index(s) for s in seeds]
    final, heads = {}, {}
    for task in report.tasks:
        entry = study["tasks"].get(task)
        own = entry is not None and name in entry["variants"]
        source = entry["variants"][name] if own else (
            entry["variants"].get("paper", {}) if entry is not None and _switch_variant(name) else {})
        heads[task] = _headline(entry or {}, name if own else "paper", report.task_info[task])
        final[task] = {}
        for model in report.histories[task]:
            values = np.asarray(source.get(model, [math.nan] * len(seeds)), dtype=float)
            if len(values) == len(all_seeds) and len(seeds) < len(all_seeds):
                values = values[pick]
            if len(values) != len(seeds):
                raise ValueError(f"protocol study: {task}/{name}/{model} has {len(values)} values for the "
                                 f"{len(seeds)} seeds {seeds}")
            final[task][model] = values
    return final, heads


def values_report(report, final: dict, seeds: list[int], headlines: dict) -> BenchmarkReport:
    """A :class:`BenchmarkReport` whose one-epoch histories hold ``final``'s values, with ``report``'s
    options and baseline kinds, so that every statistic on them is the main report's own code."""
    hist = {t: {m: [{headlines[t][0]: [float(x)]} if math.isfinite(x) else None for x in v]
                for m, v in by_model.items()} for t, by_model in final.items()}
    kinds = report.baseline_models()
    cells = {t: {m: {"baseline_kind": kinds[m]} for m in by_model if m in kinds} for t, by_model in final.items()}
    for t, by_model in final.items():  # the variant's constant predictor: tells an uninformative task (.informative)
        constant = headlines[t][2] if len(headlines[t]) > 2 else None
        if constant is not None and by_model:
            name = headlines[t][0].replace("test_", "test_constant_", 1)
            first = next(iter(by_model))
            cells[t].setdefault(first, {})["seeds"] = {"0": {"baseline": {name: float(constant)}}}
    tasks = {t: {"metric": headlines[t][0], "direction": headlines[t][1], "family": report.task_info[t].family,
                 "category": report.task_info[t].category} for t in final}
    options = {**report.options(), "epoch_selection": "final", "ci_method": "t"}
    return BenchmarkReport(seeds, hist, report.config, tasks=tasks, cells=cells, **options)


def variant_state(report, study: dict, name: str, seeds: list[int]) -> State:
    """The :class:`State` of variant ``name`` of ``study`` on ``seeds``."""
    final, headlines = variant_values(report, study, name, seeds)
    return state_of(values_report(report, final, seeds, headlines))


def study_variants(report, study: dict) -> list[Variant]:
    """Every variant of ``study`` (but ``paper``, the main run) as a :class:`Variant`."""
    all_seeds = [int(s) for s in study["seeds"]]
    switch_seeds = [int(s) for s in (study.get("variant_seeds") or all_seeds)]
    bases: dict[tuple, State] = {}  # the paper protocol per set of seeds, computed once
    out = []
    for name in variant_order(study, report.tasks):
        seeds = switch_seeds if _switch_variant(name) else all_seeds
        base = None
        if seeds != all_seeds:
            if tuple(seeds) not in bases:
                bases[tuple(seeds)] = variant_state(report, study, "paper", seeds)
            base = bases[tuple(seeds)]
        tasks = frozenset(t for t, e in study["tasks"].items() if name in e["variants"])
        out.append(Variant(name, seeds, tasks, variant_state(report, study, name, seeds), base))
    return out


# ----------------------------------------------------------------------------- judging and records
def judge(claim: Claim, variant: Variant) -> tuple[str, str]:
    """``(verdict, what the variant says)``: ``holds``, ``fails``, ``undecided`` or ``not_run``
    (definitions: the module docstring)."""
    said = outcome(claim, variant.state)
    if said is None:
        return "not_run", "not computable (no values)"
    text = describe(claim, variant.state)
    if variant.base is None:
        return ("holds" if said == claim.outcome else "fails"), text
    base = outcome(claim, variant.base)
    text = f"seeds {seed_text(variant.seeds)}: {text}; paper protocol on these seeds: {describe(claim, variant.base)}"
    if base is None:
        return "not_run", text
    if base != claim.outcome:
        return "undecided", text
    return ("holds" if said == claim.outcome else "fails"), text


def _relevant(claim: Claim, variant: Variant) -> bool:
    """A per-task claim is tested where the study ran the variant on its task; an across-task one
    where the variant moves at least one of its tasks."""
    if claim.task is not None:
        return claim.task in variant.tasks
    return bool(variant.tasks & {t for t, _ in claim.needs})


def status_of(record: dict, other: str) -> str:
    """:data:`STATUSES`: see the module docstring."""
    if other in record["fails_under"]:
        return "protocol_dependent"
    if other not in record["holds_under"]:
        return "untested"
    return "switch_dependent" if record["fails_under"] else "robust"


def _jsonable(v):
    return list(v) if isinstance(v, tuple) else v


def record(claim: Claim, main: str, other: str, main_text: str, judged: Mapping[str, tuple[str, str]]) -> dict:
    """The claim record of ``metrics/report.json``'s ``conclusions``."""
    rec = {"id": claim.id, "kind": claim.kind, "task": claim.task, "models": list(claim.models),
           "outcome": _jsonable(claim.outcome), "text": claim.text, "holds_under": [main], "fails_under": [],
           "undecided": [], "not_run": [], "outcomes": {main: main_text},
           "selected_before_test": claim.kind in SELECTED_KINDS}
    for name, (verdict, text) in judged.items():
        rec[{"holds": "holds_under", "fails": "fails_under", "undecided": "undecided",
             "not_run": "not_run"}[verdict]].append(name)
        rec["outcomes"][name] = text
    if other not in rec["outcomes"]:
        rec["not_run"].append(other)
    rec["status"] = status_of(rec, other)
    return rec


def main_name(report) -> str:
    """The main run's protocol (``paper``, ``strict``, with ``+switch=value`` per override)."""
    cfg = report.config or {}
    return (cfg.get("protocol") or "paper") + "".join(
        f"+{k}={v}" for k, v in (cfg.get("protocol_overrides") or {}).items())


def collect(report, study: dict | None, effects: Mapping, *, candidate: str | None, roster: Sequence[str],
            pairwise: list[dict] | None = None, verdicts: list[dict] | None = None,
            friedman: dict | None = None) -> dict:
    """``{"basis", "claims"}``: every claim of ``report`` with the variants it holds and fails under.

    ``effects``: :func:`.reproduction.study_effects` of ``study`` (is it there, is it stale);
    ``pairwise``/``verdicts``/``friedman``: the main run's rows where already computed.
    ``basis``: ``study`` (``used``, ``stale`` or ``none``), ``main`` and ``other`` protocol, and per
    variant its seeds and the tasks it ran on.
    """
    main_state = state_of(report, pairwise=pairwise, verdicts=verdicts, friedman=friedman)
    claims = main_claims(report, main_state, candidate, roster, report.baseline_models())
    used = bool(effects.get("available")) and not effects.get("stale")
    main = "paper" if used else main_name(report)
    other = "strict" if main.partition("+")[0] == "paper" else "paper"
    basis = {"study": "used" if used else ("stale" if effects.get("available") else "none"), "main": main,
             "other": other, "seeds": list(report.seeds), "variants": {},
             "remaining": dict(effects.get("remaining") or {}) if used else {}}
    variants = study_variants(report, study) if used else []
    for v in variants:
        basis["variants"][v.name] = {"seeds": v.seeds, "tasks": sorted(v.tasks)}
    records = []
    for c in claims:
        judged = {v.name: judge(c, v) for v in variants if _relevant(c, v)}
        records.append(record(c, main, other, describe(c, main_state), judged))
    return {"basis": basis, "claims": records}
