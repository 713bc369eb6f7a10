"""REPORT.md's opening section, "What holds under every protocol", and the marks that flag a
protocol-dependent claim where a later section states it (:mod:`netzbench.report.conclusions`).

⚑ marks a claim that does not hold under the other protocol (``strict`` for a paper-protocol run),
⚐ one that holds under both protocols but not under every single-switch variant; the opening
section names the variants.
"""

from __future__ import annotations

from ..conclusions import KINDS, claim_id, seed_text
from ..facts import ReportFacts
from .text import incomplete_note

TITLE = "What holds under every protocol"
MARKS = {"protocol_dependent": "⚑", "switch_dependent": "⚐"}
#: how the grouped list names each kind of claim
KIND_HEADS = {"best_model": "Best model", "gnn_vs_baseline": "Best GNN against the best baseline",
              "gnn_vs_structure_free": "Best GNN against the structure-free baseline",
              "structure_only_vs_free": "Best structure-only baseline against the structure-free one",
              "significant_pair": "Significant pairs", "mean_rank_order": "Mean-rank order",
              "friedman": "Friedman test", "candidate": "Candidate"}


def _index(facts: ReportFacts) -> dict[str, dict]:
    return {c["id"]: c for c in facts.conclusions["claims"]}


def mark(facts: ReportFacts, kind: str, task: str | None = None, *models: str) -> str:
    """`` ⚑`` / `` ⚐`` after a claim REPORT.md states when it depends on the protocol, else ``""``."""
    rec = _index(facts).get(claim_id(kind, task, *models))
    return f" {MARKS[rec['status']]}" if rec and rec["status"] in MARKS else ""


def legend(facts: ReportFacts, texts) -> list[str]:
    """The marks' legend (one line and a blank one) when any of ``texts`` carries a mark."""
    if not any(m in t for t in texts for m in MARKS.values()):
        return []
    other = facts.conclusions["basis"]["other"]
    return [f"⚑: does not hold under the `{other}` protocol; ⚐: holds under both protocols, not under every "
            f"single-switch variant (which: *{TITLE}*, at the top).", ""]


def dependent(facts: ReportFacts, kind: str) -> list[str]:
    """The claims of ``kind`` that depend on the protocol, in a few words with their mark (``GCN ahead of
    GraphSAGE ⚐``; per-task claims prefixed with the task)."""
    return [(f"`{r['task']}` " if r["task"] else "") + _short(r) + f" {MARKS[r['status']]}"
            for r in facts.conclusions["claims"] if r["kind"] == kind and r["status"] in MARKS]


def _code(names) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _short(rec: dict) -> str:
    """A claim in a few words, for the grouped list."""
    kind, models, outcome = rec["kind"], rec["models"], rec["outcome"]
    if kind == "best_model":
        return " = ".join(models)
    if kind == "gnn_vs_baseline":
        gnn, base = models
        return {"gnn_better": f"{gnn} > {base}", "baseline_better": f"{base} > {gnn}",
                "not_significant": f"{gnn} ≈ {base} (not significant)"}[outcome]
    if kind in ("gnn_vs_structure_free", "structure_only_vs_free"):
        return f"{models[0]} > {models[1]}" if outcome else f"{models[0]} not better than {models[1]}"
    if kind in ("significant_pair", "candidate"):
        a, b = models
        return f"{a} > {b}" if outcome == a else f"{b} > {a}"
    if kind == "mean_rank_order":
        return f"{models[0]} = {models[1]}" if outcome == "=" else f"{models[0]} ahead of {models[1]}"
    return rec["text"].removeprefix("the Friedman test ")


def _switch_note(rec: dict, main: str, other: str) -> str:
    failed = [n for n in rec["fails_under"] if n not in (main, other)]
    return f" ⚐ (not under {_code(failed)})" if failed else ""


def _grouped(records: list[dict], main: str, other: str) -> list[str]:
    """One bullet per kind; per-task claims grouped by task."""
    L = []
    for kind in KINDS:
        head = KIND_HEADS[kind]
        recs = [r for r in records if r["kind"] == kind]
        if not recs:
            continue
        by_task: dict[str | None, list[str]] = {}
        for r in recs:
            by_task.setdefault(r["task"], []).append(_short(r) + _switch_note(r, main, other))
        parts = [(f"`{t}` " if t else "") + ", ".join(items) for t, items in by_task.items()]
        L.append(f"- {head}: " + "; ".join(parts) + ".")
    return L


def _dependent(rec: dict, main: str, other: str) -> str:
    also = [n for n in rec["fails_under"] if n not in (main, other)]
    return (f"- {rec['text']} — not under `{other}`: {rec['outcomes'][other]}"
            + (f"; nor under {_code(also)}" if also else "") + ".")


def robustness(facts: ReportFacts) -> list[str]:
    """The opening section: the claims that hold under both protocols (and how many single-switch
    variants), then those that depend on the protocol, each with where it flips."""
    con = facts.conclusions
    basis, claims = con["basis"], con["claims"]
    main, other = basis["main"], basis["other"]
    L = [f"## {TITLE}", ""]
    if basis["study"] != "used":
        if basis["study"] == "stale":
            why = ("the protocol study is stale (written for other seeds, other paper-protocol values or other "
                   "result code: rerun `netzbench protocols`)")
        elif main.partition("+")[0] == "paper":
            why = "no protocol study in this run (`netzbench protocols` writes `reports/protocol_study.json`)"
        else:  # e.g. reports/strict/: the study varies the paper protocol's claims, not this one's
            why = f"the protocol study (`netzbench protocols`) tests the paper protocol's claims, not `{main}`'s"
        return L + [f"Not tested: {why}, so the {len(claims)} claim(s) below are the `{main}` protocol's alone "
                    "(`metrics/report.json` → `conclusions`).", ""]
    variants = basis["variants"]
    switches = [n for n in variants if n != other]
    seeds = {tuple(variants[n]["seeds"]) for n in switches}
    seeds_note = (f", on seeds {seed_text(list(next(iter(seeds))))}" if len(seeds) == 1 and
                  list(next(iter(seeds))) != basis["seeds"] else "")
    hold = [r for r in claims if r["status"] in ("robust", "switch_dependent")]
    flip = [r for r in claims if r["status"] == "protocol_dependent"]
    untested = [r for r in claims if r["status"] == "untested"]
    n = len(claims)
    single = (f" and under the paper protocol with one switch set strict ({len(switches)} variant(s){seeds_note}, "
              "each compared with the paper protocol recomputed on the same seeds, so that a claim fails there only "
              "when the switch changes it; where the paper protocol itself does not make the claim on those seeds, "
              "the variant is *undecided*)" if switches else "")
    L.append(f"Every claim this report states is recomputed, with the same statistics, from the protocol study "
             f"(`reports/protocol_study.json`): under the `{other}` protocol (seeds {seed_text(basis['seeds'])})"
             f"{single}. Of the {n} claim{'s' if n != 1 else ''}, **{len(hold)} hold under both protocols**"
             + (f" ({sum(r['status'] == 'robust' for r in hold)} of them under every single switch that decides "
                "them)" if switches else "")
             + f", **{len(flip)} depend on the protocol**" + (f", {len(untested)} could not be tested" if untested
                                                             else "")
             + ". Below, ⚑ marks a protocol-dependent claim where it is stated and ⚐ one that a single switch "
             "changes. Each claim with the variants it holds, fails and is undecided under: `metrics/report.json` "
             "→ `conclusions`.")
    L.append("")
    L += incomplete_note(basis)
    if hold:
        L += [f"**Hold under `{main}` and `{other}`**" + (" (⚐: not under the single switch named)" if any(
            r["status"] == "switch_dependent" for r in hold) else "") + ":", ""]
        L += _grouped(hold, main, other) + [""]
    if flip:
        L += [f"**Depend on the protocol** (hold under `{main}`, not under `{other}`):", ""]
        L += [_dependent(r, main, other) for r in flip] + [""]
    if untested:
        L += [f"**Not tested under `{other}`** (the study has no values for a cell they rest on): "
              + "; ".join(r["text"] for r in untested) + ".", ""]
    return L
