"""REPORT.md's opening section, "What holds under every protocol", and the marks that flag a
protocol-dependent claim where a later section states it (:mod:`netzbench.report.conclusions`).

⚑ marks a claim that does not hold under the other protocol (``strict`` for a paper-protocol run),
⚐ one that holds under both protocols but not under every single-switch variant; the opening
section names the variants. The wording, a claim's in a few words included: ``templates/robustness.md.j2``.
"""

from __future__ import annotations

from ..conclusions import KINDS, claim_id, seed_text
from ..facts import ReportFacts
from .templating import phrase, render
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
    return render("robustness", "legend", other=facts.conclusions["basis"]["other"], title=TITLE)


def dependent(facts: ReportFacts, kind: str) -> list[str]:
    """The claims of ``kind`` that depend on the protocol, in a few words with their mark (``GCN ahead of
    GraphSAGE ⚐``; per-task claims prefixed with the task)."""
    return [(f"`{r['task']}` " if r["task"] else "") + phrase("robustness", "claim", rec=r) + f" {MARKS[r['status']]}"
            for r in facts.conclusions["claims"] if r["kind"] == kind and r["status"] in MARKS]


def _grouped(records: list[dict], main: str, other: str) -> list[tuple[str, list]]:
    """Per kind of claim (its head), the claims by task, each with the single switches it fails under."""
    out = []
    for kind in KINDS:
        by_task: dict[str | None, list] = {}
        for r in records:
            if r["kind"] == kind:
                failed = [n for n in r["fails_under"] if n not in (main, other)]
                by_task.setdefault(r["task"], []).append((r, failed))
        if by_task:
            out.append((KIND_HEADS[kind], list(by_task.items())))
    return out


def robustness(facts: ReportFacts) -> list[str]:
    """The opening section: the claims that hold under both protocols (and how many single-switch
    variants), then those that depend on the protocol, each with where it flips."""
    con = facts.conclusions
    basis, claims = con["basis"], con["claims"]
    main, other = basis["main"], basis["other"]
    study = basis["study"]
    if study not in ("used", "stale"):  # none, or one varying the paper protocol's claims (e.g. reports/strict/)
        study = "none" if main.partition("+")[0] == "paper" else "other"
    if study != "used":
        return render("robustness", "not_tested", title=TITLE, why=study, main=main, n_claims=len(claims))
    variants = basis["variants"]
    switches = [n for n in variants if n != other]
    seeds = {tuple(variants[n]["seeds"]) for n in switches}
    # the single switches' seeds, when they all ran on the same ones and those are not the study's
    switch_seeds = (seed_text(list(next(iter(seeds)))) if len(seeds) == 1 and list(next(iter(seeds))) != basis["seeds"]
                    else None)
    hold = [r for r in claims if r["status"] in ("robust", "switch_dependent")]
    flip = [r for r in claims if r["status"] == "protocol_dependent"]
    return render("robustness", "robustness", title=TITLE, main=main, other=other, n_claims=len(claims),
                  seeds=seed_text(basis["seeds"]), n_switches=len(switches),
                  switch_seeds=switch_seeds, n_hold=len(hold), n_robust=sum(r["status"] == "robust" for r in hold),
                  hold=_grouped(hold, main, other),
                  any_switch_dependent=any(r["status"] == "switch_dependent" for r in hold),
                  flip=[(r, [n for n in r["fails_under"] if n not in (main, other)]) for r in flip],
                  untested=[r for r in claims if r["status"] == "untested"], incomplete=incomplete_note(basis))
