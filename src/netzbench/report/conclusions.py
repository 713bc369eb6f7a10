r"""Every conclusion the report states, and the protocols under which it holds.

A **claim** is one statement REPORT.md makes about the main run, recomputed under every protocol
variant of the protocol study (``reports/protocol_study.json``, :mod:`netzbench.study`): the
other protocol (``strict``) and the paper protocol with one switch set strict. Kinds and what
counts as *the same claim* under a variant:

``best_model`` (per task)
    the same models share the best seed mean among the ranked models (section 2's bold);
``gnn_vs_baseline`` (per task)
    the same verdict of the best GNN against the best baseline (``gnn_better``,
    ``baseline_better``, ``not_significant``; :func:`.baselines.comparison`), whichever models
    are best under the variant;
``gnn_vs_structure_free`` (per task)
    the same answer to "is the best GNN significantly better than the best structure-free baseline";
``structure_only_vs_free`` (per task)
    the same answer to "is the best structure-only baseline (a link heuristic) significantly better
    than the best structure-free one";
``significant_pair`` (per task and pair)
    the pair is significant in the same direction (paired test, Holm within the task:
    :func:`.within_task.pairwise`);
``mean_rank_order`` (per pair of ranked models)
    the same order of the two mean ranks (one claim per pair, so a change of the whole order is
    seen as the relations that flip);
``friedman``
    the same decision of the Friedman test at ``alpha`` (reject or not);
``candidate`` (per task and roster model)
    the candidate's significant win or loss against that model is the same.

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
from .formatting import p_value
from .within_task import TEST_NAMES

#: claim kinds, in the order REPORT.md states them
KINDS = ("best_model", "gnn_vs_baseline", "gnn_vs_structure_free", "structure_only_vs_free", "significant_pair",
         "mean_rank_order", "friedman", "candidate")
STATUSES = ("robust", "switch_dependent", "protocol_dependent", "untested")
#: a baseline kind in a claim's words
KIND_WORDS = {"heuristic": "link heuristic", "structure_free": "structure-free"}


def claim_id(kind: str, task: str | None = None, *models: str) -> str:
    """The stable id of a claim: ``kind:task:model...`` (a pair: the better / higher-ranked model first)."""
    return ":".join([kind] + ([task] if task else []) + list(models))


@dataclass(frozen=True)
class State:
    """What a report (the main run, or a variant's values) says: the inputs of every claim."""

    final: Mapping[str, Mapping[str, np.ndarray]]
    best: dict[str, list[str]]  # task -> the tied best ranked models
    means: dict[str, dict[str, float]]
    pairs: dict[tuple[str, str, str], dict]  # (task, model_a, model_b) -> pairwise row
    verdicts: dict[str, dict]  # task -> baseline comparison row
    friedman: dict
    alpha: float

    def has(self, task: str, model: str) -> bool:
        v = self.final.get(task, {}).get(model)
        return v is not None and bool(np.isfinite(v).any())

    def pair(self, task: str, a: str, b: str) -> dict | None:
        return self.pairs.get((task, a, b)) or self.pairs.get((task, b, a))


def state_of(report, *, pairwise=None, verdicts=None, friedman=None) -> State:
    """The :class:`State` of ``report``; the main run passes the rows its facts already hold."""
    final = report.final_metrics()
    ranked = set(report.ranked_models)
    best, means = {}, {}
    for task, by_model in final.items():
        means[task] = {m: float(np.nanmean(v)) for m, v in by_model.items() if np.isfinite(v).any()}
        pool = {m: x for m, x in means[task].items() if m in ranked}
        if pool:
            target = (max if report.task_info[task].direction == "higher" else min)(pool.values())
            best[task] = [m for m, x in pool.items() if x == target]
    rows = report.pairwise() if pairwise is None else pairwise
    return State(final, best, means, {(r["task"], r["model_a"], r["model_b"]): r for r in rows},
                 {r["task"]: r for r in (report.baseline_comparison() if verdicts is None else verdicts)},
                 report.friedman() if friedman is None else friedman, report.alpha)


@dataclass(frozen=True)
class Claim:
    """One statement of the main run: its kind, task and models (:func:`claim_id`), what the main run
    says (``outcome``) and the cells it rests on (``needs``: a variant without them cannot say)."""

    kind: str
    task: str | None
    models: tuple[str, ...]
    outcome: object  # what the main run says (compared with each variant's)
    text: str
    needs: tuple[tuple[str, str], ...]  # the (task, model) cells it is computed from

    @property
    def id(self) -> str:
        return claim_id(self.kind, self.task, *self.models)


def outcome(claim: Claim, st: State):
    """What ``st`` says on ``claim``'s question (None: it cannot say)."""
    kind, task, models = claim.kind, claim.task, claim.models
    if any(not st.has(t, m) for t, m in claim.needs):
        return None
    if kind == "best_model":
        return tuple(st.best[task]) if task in st.best else None
    if kind in ("gnn_vs_baseline", "gnn_vs_structure_free", "structure_only_vs_free"):
        row = st.verdicts.get(task)
        if row is None or row["verdict"] == "no_comparison":
            return None
        return row.get({"gnn_vs_baseline": "verdict", "gnn_vs_structure_free": "rewards_structure",
                        "structure_only_vs_free": "structure_only_beats_free"}[kind])
    if kind in ("significant_pair", "candidate"):
        row = st.pair(task, *models[:2])
        return None if row is None else row["better"]  # "" when not significant
    mr = st.friedman.get("mean_ranks", {})
    if kind == "mean_rank_order":
        a, b = models
        if a not in mr or b not in mr or not (math.isfinite(mr[a]) and math.isfinite(mr[b])):
            return None
        return "=" if math.isclose(mr[a], mr[b], abs_tol=1e-12) else ("<" if mr[a] < mr[b] else ">")
    p = st.friedman.get("p_value", math.nan)
    return None if not math.isfinite(p) else ("reject" if p < st.alpha else "no_reject")


def describe(claim: Claim, st: State) -> str:
    """``st``'s answer to ``claim`` in a few words (the record's ``outcomes``)."""
    if outcome(claim, st) is None:
        return "not computable (no values)"
    kind, task = claim.kind, claim.task
    if kind == "best_model":
        return " = ".join(f"{m} ({st.means[task][m]:.3f})" for m in st.best[task])
    if kind in ("gnn_vs_baseline", "gnn_vs_structure_free", "structure_only_vs_free"):
        r = st.verdicts[task]
        if kind == "structure_only_vs_free":
            verdict = "" if r["structure_only_beats_free"] else "not "
            return (f"{r['structure_only']} vs {r['structure_free']}: {verdict}significant in the heuristic's favour"
                    f" (p_Holm = {p_value(r.get('structure_only_p_holm'))})")
        if kind == "gnn_vs_structure_free":
            return (f"{r['best_gnn']} vs {r['structure_free']}: {'' if r['rewards_structure'] else 'not '}significant "
                    f"in the GNN's favour (p_Holm = {p_value(r['structure_p_holm'])})")
        gnn, base = f"{r['best_gnn']} ({r['gnn_mean']:.3f})", f"{r['best_baseline']} ({r['baseline_mean']:.3f})"
        verb = {"gnn_better": f"{gnn} beats {base}", "baseline_better": f"{base} beats {gnn}",
                "not_significant": f"{gnn} vs {base} not significant"}[r["verdict"]]
        return f"{verb} (p_Holm = {p_value(r['p_holm'])})"
    if kind in ("significant_pair", "candidate"):
        r = st.pair(task, *claim.models[:2])
        head = f"{r['better']} better by {abs(r['mean_diff']):.4f}" if r["better"] else "not significant"
        return f"{head} (p_Holm = {p_value(r['p_holm'])}, {r['n_seeds']} seeds)"
    fr = st.friedman
    if kind == "mean_rank_order":
        return ", ".join(f"{m} {fr['mean_ranks'][m]:.2f}" for m in claim.models)
    return f"{'rejects' if outcome(claim, st) == 'reject' else 'does not reject'} (p = {p_value(fr['p_value'])})"


def main_claims(report, st: State, candidate: str | None, roster: Sequence[str], kinds: Mapping[str, str]
                ) -> list[Claim]:
    """Every claim REPORT.md makes about ``report`` (its :class:`State` ``st``), in the order it makes them."""
    ranked = report.ranked_models
    pool = "the models under test" if report.baseline_mode == "separate" else "all models"
    test = TEST_NAMES[report.pairwise_method]
    out: list[Claim] = []
    for task in report.tasks:
        on_task = tuple((task, m) for m in st.means.get(task, {}))
        ranked_on = tuple((t, m) for t, m in on_task if m in ranked)
        if task in st.best:
            best = st.best[task]
            verb = "has" if len(best) == 1 else "share"
            out.append(Claim("best_model", task, tuple(best), tuple(best),
                             f"`{task}`: {' and '.join(best)} {verb} the best mean of {pool}", ranked_on))
        r = st.verdicts.get(task)
        if r is not None and r["verdict"] != "no_comparison":
            g, b = r["best_gnn"], r["best_baseline"]
            kind = KIND_WORDS.get(kinds.get(b), "baseline")
            text = {"gnn_better": f"`{task}`: the best GNN ({g}) is significantly better than the best baseline ({b})",
                    "baseline_better": f"`{task}`: the best baseline ({b}, {kind}) is significantly better than the "
                                       f"best GNN ({g})",
                    "not_significant": f"`{task}`: the best GNN ({g}) and the best baseline ({b}) do not differ "
                                       "significantly"}[r["verdict"]]
            out.append(Claim("gnn_vs_baseline", task, (g, b), r["verdict"], text, on_task))
            if r["rewards_structure"] is not None:
                free = r["structure_free"]
                text = (f"`{task}`: the best GNN ({g}) is significantly better than the structure-free {free}"
                        if r["rewards_structure"] else
                        f"`{task}`: the best GNN ({g}) is not significantly better than the structure-free {free}")
                out.append(Claim("gnn_vs_structure_free", task, (g, free), r["rewards_structure"], text, on_task))
            if r.get("structure_only_beats_free") is not None:  # does the graph alone beat the features alone?
                only, free = r["structure_only"], r["structure_free"]
                text = (f"`{task}`: the best structure-only baseline ({only}) is "
                        f"{'' if r['structure_only_beats_free'] else 'not '}significantly better than the "
                        f"structure-free {free}")
                out.append(Claim("structure_only_vs_free", task, (only, free), r["structure_only_beats_free"], text,
                                 on_task))
    for r in st.pairs.values():
        if r["significant"] and r["better"]:
            worse = r["model_b"] if r["better"] == r["model_a"] else r["model_a"]
            needs = tuple((r["task"], m) for m in st.means.get(r["task"], {}) if m in ranked)  # the Holm family
            out.append(Claim("significant_pair", r["task"], (r["better"], worse), r["better"],
                             f"`{r['task']}`: {r['better']} is significantly better than {worse} ({test}, Holm "
                             "within the task)", needs))
    fr = st.friedman
    if fr.get("k", 0) >= 2 and fr.get("n_tasks", 0) >= 1:
        needs = tuple((t, m) for t in fr["tasks"] for m in fr["models"])
        mr = fr["mean_ranks"]
        order = sorted(fr["models"], key=lambda m: mr[m])
        n = fr["n_tasks"]
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                tie = math.isclose(mr[a], mr[b], abs_tol=1e-12)
                text = (f"{a} and {b} tie in mean rank ({mr[a]:.2f}, N = {n} tasks)" if tie else
                        f"{a} ranks ahead of {b} in mean rank ({mr[a]:.2f} vs {mr[b]:.2f}, N = {n} tasks)")
                out.append(Claim("mean_rank_order", None, (a, b), "=" if tie else "<", text, needs))
        if math.isfinite(fr["p_value"]):
            reject = fr["p_value"] < report.alpha
            out.append(Claim("friedman", None, (), "reject" if reject else "no_reject",
                             f"the Friedman test {'rejects' if reject else 'does not reject'} equal mean ranks of "
                             f"{', '.join(fr['models'])} over N = {n} tasks (p = {p_value(fr['p_value'])}, "
                             f"α = {report.alpha:g})", needs))
    if candidate:
        for r in st.pairs.values():
            if not r["significant"] or candidate not in (r["model_a"], r["model_b"]):
                continue
            other = r["model_b"] if r["model_a"] == candidate else r["model_a"]
            if other not in roster:  # the candidate block counts against the roster only
                continue
            needs = tuple((r["task"], m) for m in st.means.get(r["task"], {}) if m in ranked)
            won = r["better"] == candidate
            out.append(Claim("candidate", r["task"], (candidate, other), r["better"],
                             f"`{r['task']}`: the candidate {candidate} is significantly "
                             f"{'better' if won else 'worse'} than {other}", needs))
    return out


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


def _headline(entry: dict, name: str, info) -> tuple[str, str]:
    """The variant's headline series and direction: the study's per-variant ``headlines`` where it
    records them, else the task's, else the main run's."""
    own = (entry.get("headlines") or {}).get(name) or {}
    return (own.get("metric") or entry.get("metric") or info.metric,
            own.get("direction") or entry.get("direction") or info.direction)


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
           "undecided": [], "not_run": [], "outcomes": {main: main_text}}
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
