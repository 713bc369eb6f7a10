r"""The claims REPORT.md makes about a run, each judged on the models and task it names.

A **claim** (:class:`Claim`) is one statement of the main run: its kind, its task (None: across
tasks), the models it names, what the main run says (``outcome``) and the cells it rests on. A
:class:`State` is what a report says: the main run's, or a protocol variant's
(:mod:`.conclusions` judges every claim under every variant of the protocol study).

A claim is re-evaluated on exactly what it names (:func:`outcome`): a variant repeats the claim only
when the models it names are again the ones it is about. "The best GNN (GCN) beats the best baseline
(MLP)" holds under a variant only where GCN is again the best GNN, MLP again the best baseline and the
verdict the same; a variant whose best baseline is another model fails it, whatever its own verdict
(the verdict of other models is another claim). Kinds and their outcome:

``best_model``
    the tied best models (section 2's bold);
``gnn_vs_baseline``
    ``(best GNN, best baseline, verdict)``, verdict ``gnn_better``, ``baseline_better`` or
    ``not_significant`` (:func:`.baselines.comparison`);
``gnn_vs_structure_free``
    ``(best GNN, best structure-free baseline, winner)``: the significantly better of the two, or
    ``""`` when neither is;
``structure_only_vs_free``
    ``(best structure-only baseline, best structure-free baseline, winner)``, the same way;
``significant_pair`` and ``candidate``
    the significantly better model of the named pair (``""``: neither), Holm within the task;
``mean_rank_order``
    ``<``, ``=`` or ``>`` between the two named models' mean ranks;
``friedman``
    ``reject`` or ``no_reject`` at ``alpha``.

The three baseline kinds compare **selected** models: the best of each group is chosen on the same
test values the paired test then uses, so its p-value does not account for the selection (with many
candidates, the best's advantage is biased upwards). Their texts say so (:data:`SELECTED`). Outcome
texts (:func:`describe`) name the winner and the direction: ``GCN vs MLP: MLP better, p_Holm = 3.06e-07``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

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


#: said of every claim about the best of a group: selection precedes the test
SELECTED = "selected on the tested values"
#: the kinds whose models are selected (the best of a group) before they are tested
SELECTED_KINDS = ("gnn_vs_baseline", "gnn_vs_structure_free", "structure_only_vs_free")


def _winner(r: dict, a: str, b: str, a_wins: bool | None, b_wins: bool | None) -> str:
    return r[a] if a_wins else (r[b] if b_wins else "")


def baseline_outcome(kind: str, r: dict) -> tuple[str, str, str]:
    """``(model a, model b, winner)`` of a baseline comparison row for ``kind`` (winner ``""``: neither is
    significantly better); for ``gnn_vs_baseline`` the winner is the verdict (:data:`.baselines.VERDICTS`)."""
    if kind == "gnn_vs_baseline":
        return r["best_gnn"], r["best_baseline"], r["verdict"]
    if kind == "gnn_vs_structure_free":
        return (r["best_gnn"], r["structure_free"],
                _winner(r, "best_gnn", "structure_free", r["rewards_structure"], r.get("structure_free_better")))
    return (r["structure_only"], r["structure_free"],
            _winner(r, "structure_only", "structure_free", r.get("structure_only_beats_free"),
                    r.get("structure_free_beats_only")))


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
        return baseline_outcome(kind, row)
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
        a, b, winner = baseline_outcome(kind, r)
        p = r[{"gnn_vs_baseline": "p_holm", "gnn_vs_structure_free": "structure_p_holm",
               "structure_only_vs_free": "structure_only_p_holm"}[kind]]
        if kind == "gnn_vs_baseline":
            winner = {"gnn_better": a, "baseline_better": b}.get(winner, "")
            a, b = f"{a} ({r['gnn_mean']:.3f})", f"{b} ({r['baseline_mean']:.3f})"
        head = f"{a} vs {b}: {winner} better" if winner else f"{a} vs {b}: no significant difference"
        return f"{head}, p_Holm = {p_value(p)}"
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
            out.append(Claim("gnn_vs_baseline", task, (g, b), baseline_outcome("gnn_vs_baseline", r),
                             f"{text} ({SELECTED})", on_task))
            for sub, (a, other) in (("gnn_vs_structure_free", (g, r["structure_free"])),
                                    ("structure_only_vs_free", (r.get("structure_only"), r["structure_free"]))):
                if a is None or other is None or (sub == "structure_only_vs_free"
                                                  and r.get("structure_only_beats_free") is None):
                    continue
                said = baseline_outcome(sub, r)
                what = {"gnn_vs_structure_free": f"the best GNN ({a})",
                        "structure_only_vs_free": f"the best structure-only baseline ({a})"}[sub]
                if said[2] == a:
                    text = f"`{task}`: {what} is significantly better than the structure-free {other}"
                elif said[2] == other:
                    text = f"`{task}`: the structure-free {other} is significantly better than {what}"
                else:
                    text = f"`{task}`: {what} and the structure-free {other} do not differ significantly"
                out.append(Claim(sub, task, (a, other), said, f"{text} ({SELECTED})", on_task))
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


