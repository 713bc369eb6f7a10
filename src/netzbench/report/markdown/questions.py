"""REPORT.md section 14: the three questions, where the run has what answers them (:mod:`..questions`):
does the graph matter (structure controls), were the models tuned alike (tuning-budget curves), are there
enough seeds (the seed plan). Nothing when the run has none of them. The text is
``templates/questions.md.j2``."""

from __future__ import annotations

import math

from ..facts import ReportFacts
from ..formatting import number, p_value
from .templating import render
from .text import table


def _signed(v: float) -> str:
    return f"{v:+.4f}".replace("-", "−")


def _undetected(r: dict) -> str:
    """Why an effect was not detected: the smallest these seeds could detect, or a constant difference."""
    mde = r.get("mde")
    if mde is None or not math.isfinite(mde):  # zero spread: every seed the same difference (the sign test)
        return f" (the same difference on each of the {r['n_seeds']} seeds: too few seeds for even that)"
    return f" (smallest detectable: {number(mde, 3)})"


def _control_verdict(r: dict) -> str:
    """A controls row's verdict cell: the verdict, why a collapsed side leaves it open, an identical control,
    a side still learning at its last epoch."""
    said = r["verdict"] + _undetected(r) if r["verdict"] == "no detectable effect" else r["verdict"]
    sides = [who for who in ("original", "control") if (r.get(f"{who}_flags") or {}).keys() & {"collapsed", "degenerate"}]
    if sides:
        said += f" ({' and '.join(f'the {w}' for w in sides)})"
    if r.get("identical_to"):
        said += f"; identical to {r['identical_to'].replace('_', ' ')} on every seed"
    late = [who for who in ("original", "control") if r.get(f"{who}_converged") is False]
    if late:
        said += f"; not converged ({' and '.join(late)}: validation still rising at the last epoch)"
    return said


def _p(v) -> str:
    return p_value(float("nan") if v is None else float(v))


def questions(facts: ReportFacts) -> list[str]:
    """Section 14 (module docstring); no lines when there is nothing to answer with."""
    q = facts.questions
    if not q:
        return []
    controls = None
    if "controls" in q:
        rows = [[f"`{r['task']}`", r["model"], r["control"].replace("_", " "), number(r["original_mean"], 4),
                 number(r["control_mean"], 4), "–" if r.get("constant") is None else number(r["constant"], 4),
                 f"{_signed(r['mean_diff'])} [{_signed(r['lo'])}, {_signed(r['hi'])}]", _control_verdict(r)]
                for r in q["controls"]["rows"]]
        controls = table(["task", "model", "control", "with the graph", "on the control", "constant predictor",
                          "graph − control [95% CI]", "verdict"], rows, "lllrrrrl")
    tuning = []
    for task, t in (q.get("tuning") or {}).items():
        last = len(t["budgets"]) - 1
        rows = [[m, c["n_trials"], number(c["mean"][0], 4), number(c["mean"][last], 4)] for m, c in t["curves"].items()]
        tuning.append((task, len(t["budgets"]), table(["model", "trials", "best after 1",
                                                       f"best after {t['budgets'][last]}"], rows, "lrrr"),
                       [(x["model_a"], x["model_b"], x["at"]) for x in t["crossing"]]))
    seeds = None
    if "seeds" in q:
        s = q["seeds"]
        rows = [[f"`{c['task']}`", c["model_a"], c["model_b"], c["decision"], c["n"], _p(c.get("p_diff")),
                 _p(c.get("p_equiv"))] for c in s["comparisons"]]
        seeds = {"table": table(["task", "model A", "model B", "decision", "seeds", "p (difference)",
                                 "p (equivalence)"], rows, "llllrrr"),
                 "target": s["target_effect"], "looks": s["looks"], "level": s["level"], "alpha": s["alpha"],
                 "runs": s["seed_runs"]}
    return render("questions", "questions", controls=controls,
                  controls_seeds=(q.get("controls") or {}).get("seeds"), tuning=tuning, seeds=seeds)
