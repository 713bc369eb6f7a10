"""REPORT.md's templates: every placeholder is filled, an undefined name raises, and every macro is used.

The wording lives in ``src/netzbench/report/markdown/templates``; the sections' Python computes what
the text says. A report rendered from a small in-memory benchmark that reaches most sections (baselines,
a protocol study, a candidate, missing cells, the paper comparison) must come out without a Jinja tag
or a Python format field left in it.
"""

import re

import jinja2
import numpy as np
import pytest

from netzbench.report import BenchmarkReport
from netzbench.report.facts import collect_facts
from netzbench.report.markdown import render_markdown
from netzbench.report.markdown.templating import ENV, TEMPLATES, phrase, render
from netzbench.report.reproduction import STUDY_SCHEMA

from helpers import REPO

SEEDS = list(range(6))
MODELS = ["GCN", "GAT", "CommonNeighbors", "MLP"]
KINDS = {"CommonNeighbors": "heuristic", "MLP": "structure_free"}
#: task -> (family, metric, per-model mean); the heuristic cannot serve the node task (a missing cell)
DESIGN = {"euroroad": ("link_pred", "test_auc", {"GCN": 0.62, "GAT": 0.55, "CommonNeighbors": 0.75, "MLP": 0.50}),
          "random_tsp": ("link_pred", "test_auc", {"GCN": 0.88, "GAT": 0.84, "CommonNeighbors": 0.93, "MLP": 0.86}),
          "cora": ("node_cls", "test_acc", {"GCN": 0.81, "GAT": 0.79, "MLP": 0.60})}

#: a Jinja tag, or a Python format field (``{name}``, ``{x['y']}``, ``{v:.3f}``, ``{r!r}``) left unformatted
JINJA = re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}")
FIELD = re.compile(r"\{[A-Za-z_][\w.]*(?:\[[^\]]*\])*(?:![rsa])?(?::[^{}\s]*)?\}|\{[A-Za-z_]\w*\[")
CODE_SPAN = re.compile(r"`[^`\n]*`")


def _final():
    rng = np.random.default_rng(11)
    return {t: {m: list(mean + rng.normal(0, 0.01, len(SEEDS))) for m, mean in means.items()}
            for t, (_, _, means) in DESIGN.items()}


def _report(final):
    hist = {t: {m: [{"train_loss": [1.0, 0.5], metric.replace("test", "val"): [v - 0.05, v], metric: [v - 0.05, v]}
                    for v in vals] for m, vals in final[t].items()} for t, (_, metric, _) in DESIGN.items()}
    hist["cora"]["CommonNeighbors"] = [None] * len(SEEDS)
    tasks = {t: {"metric": metric, "direction": "higher", "family": family, "category": "c"}
             for t, (family, metric, _) in DESIGN.items()}
    cells = {t: {m: {"baseline_kind": KINDS[m]} for m in MODELS if m in KINDS} for t in final}
    cells["cora"]["CommonNeighbors"].update(status="incompatible", reason="a link heuristic scores links only")
    return BenchmarkReport(SEEDS, hist, {"protocol": "paper", "protocol_overrides": {}}, tasks=tasks, cells=cells,
                           equivalence_margin=0.02)


def _study(final):
    """The paper protocol as run, strict with the heuristic fallen behind on euroroad, one switch on 3 seeds."""
    strict = {t: {m: list(v) for m, v in bm.items()} for t, bm in final.items()}
    strict["euroroad"]["CommonNeighbors"] = [v - 0.3 for v in final["euroroad"]["CommonNeighbors"]]
    tasks = {t: {"switches": ["link_split"], "metric": DESIGN[t][1], "direction": "higher",
                 "variants": {"paper": final[t], "strict": strict[t],
                              "link_split=10_10": {m: v[:3] for m, v in final[t].items()}}}
             for t in ("euroroad", "random_tsp")}
    return {"schema": STUDY_SCHEMA, "seeds": SEEDS, "variant_seeds": SEEDS[:3], "models": MODELS, "tasks": tasks}


@pytest.fixture(scope="module")
def rendered():
    final = _final()
    return render_markdown(collect_facts(_report(final), "GCN", MODELS, study=_study(final)))


def _leftovers(text: str) -> list[str]:
    return JINJA.findall(text) + FIELD.findall(CODE_SPAN.sub("", text))


def test_the_detector_finds_what_it_looks_for():
    assert _leftovers("a {{ x }} b") and _leftovers("{% if x %}") and _leftovers("mean {alpha:g}, p = {p}")
    assert _leftovers("{r['task']} and {pw_name}") and _leftovers("{x!r}")
    assert not _leftovers("needs `report.weights` ({task: weight}) and `{cell}` in a code span; sets {0, 1}")


def test_a_rendered_report_has_no_placeholder_left(rendered):
    assert not _leftovers(rendered)
    # the fixture reaches the sections it is meant to check
    for heading in ["## What holds under every protocol", "### Baselines", "### Does the best GNN beat the best",
                    "### Post-hoc tests", "### Bayesian comparison", "## 8. Candidate", "## 9. Missing cells",
                    "## 11. Comparison with the paper's Table 3", "## 12. Paper vs strict", "## 13. Files"]:
        assert heading in rendered, heading
    assert "**Depend on the protocol**" in rendered and "**GCN**: mean rank" in rendered
    assert "| `cora` | CommonNeighbors | incompatible | 0/6 | a link heuristic scores links only |" in rendered
    assert "The single-switch rows ran on seeds [0, 1, 2]" in rendered
    assert "No protocol study in this run" not in rendered and "No candidate model" not in rendered
    assert rendered.count("\n\n\n") == 0  # no block left an extra blank line


def test_the_published_report_has_no_placeholder_left():
    path = REPO / "reports/REPORT.md"
    if not path.is_file():
        pytest.skip("no published report")
    assert not _leftovers(path.read_text(encoding="utf-8"))


def test_an_undefined_name_raises():
    with pytest.raises(jinja2.UndefinedError):
        ENV.from_string("{{ nowhere }}").render()
    with pytest.raises(jinja2.UndefinedError):  # a macro argument not given
        render("text", "incomplete_note")
    with pytest.raises(jinja2.UndefinedError):  # a key the row lacks
        render("evidence", "equivalence", error=None, margin=0.02, pw_name="paired t", table=[], flat=[],
               equivalent=[{"task": "cora", "model_a": "GCN"}])
    with pytest.raises(TypeError, match="no keyword argument 'typo'"):  # a value the macro does not take
        render("text", "incomplete_note", left={}, typo=1)


def test_macros_write_lines_and_phrases():
    assert render("text", "incomplete_note", left={}) == []
    assert render("text", "incomplete_note", left={"cora": ["strict"]})[1:] == [""]
    assert phrase("flags", "caveat", groups={}, inside=False) == ""
    assert phrase("flags", "caveat", groups={"collapsed": ["GCN", "GAT"]}, inside=True) == (
        "; flagged: GCN and GAT — collapsed")
    assert ENV.from_string("a \\\n    b\n{% if x %}\nc\n{% endif %}\nd").render(x=True) == "a b\nc\nd"


def _macros() -> dict[str, set[str]]:
    return {p.name.removesuffix(".md.j2"): set(re.findall(r"\{%-?\s*macro\s+(\w+)\(", p.read_text(encoding="utf-8")))
            for p in sorted(TEMPLATES.glob("*.md.j2"))}


def test_every_macro_is_used_and_every_call_has_its_macro():
    sources = "".join(p.read_text(encoding="utf-8") for p in sorted(TEMPLATES.parent.glob("*.py")))
    called = set(re.findall(r"""(?:render|phrase)\(\s*"(\w+)",\s*"(\w+)\"""", sources))
    macros = _macros()
    assert called and all(m in macros.get(t, ()) for t, m in called), called
    templates = "".join(p.read_text(encoding="utf-8") for p in TEMPLATES.glob("*.md.j2"))
    unused = [(t, m) for t, ms in macros.items() for m in ms
              if (t, m) not in called and len(re.findall(rf"\b{m}\(", templates)) < 2]  # its definition + a call
    assert not unused, unused


def test_templates_hold_no_python_format_field():
    for path in sorted(TEMPLATES.glob("*.md.j2")):
        text = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", "", path.read_text(encoding="utf-8"), flags=re.S)
        assert not FIELD.findall(CODE_SPAN.sub("", text)), (path.name, FIELD.findall(text))


def test_templates_ship_with_the_package():
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"report/markdown/templates/*.md.j2"' in pyproject and '"jinja2>=' in pyproject
    assert sorted(p.name for p in TEMPLATES.iterdir()) == sorted(p.name for p in TEMPLATES.glob("*.md.j2"))


def test_the_compute_cost_section_names_the_cells_trained_on_a_gpu(rendered):
    """A cell a seed of which trained on a GPU is named with the GPU (issue 48); a CPU run says nothing of GPUs."""
    from netzbench.report.cost import gpu_cells

    final = _final()
    report = _report(final)
    on_gpu = {"status": "ok", "seconds": 1.0, "started_at": 0.0, "finished_at": 1.0, "gpu": "NVIDIA H200"}
    report.cells["cora"]["GCN"] = {"status": "ok", "seeds": {str(s): dict(on_gpu) for s in SEEDS}}
    report.cells["euroroad"]["GAT"] = {"status": "ok", "seeds": {"0": {**on_gpu, "gpu": "NVIDIA A100"},
                                                                 "1": {"status": "ok", "seconds": 1.0}}}
    assert gpu_cells(report.cells) == {"NVIDIA A100": [("euroroad", "GAT")], "NVIDIA H200": [("cora", "GCN")]}
    text = render_markdown(collect_facts(report, "GCN", MODELS))
    section = text.split("## 10. Compute cost", 1)[1].split("\n## ", 1)[0]
    assert "Trained on a GPU" in section
    assert "- NVIDIA H200: 1 cell(s): `cora`/GCN" in section and "- NVIDIA A100: 1 cell(s): `euroroad`/GAT" in section
    assert not _leftovers(section)
    assert "GPU" not in rendered.split("## 10. Compute cost", 1)[1].split("\n## ", 1)[0]


def test_section_one_says_how_the_cells_trained_from_their_run_records_alone():
    """REPORT.md section 1 takes the training and the protocol from the cells' run records (no params.yaml
    enters the report's markdown): the widths, the node split, the protocol and its overridden switches."""
    from netzbench.report.markdown.protocol import protocol

    report = _report(_final())
    for t, (family, _, _) in DESIGN.items():
        for m in ("GCN", "GAT"):
            hp = {"hidden_channels": 32, "lr": 0.01, "weight_decay": 0.0, "epochs": 5,
                  **({"node_split": "random"} if family == "node_cls" else {})}
            switches = {} if family == "node_cls" else {"link_split": "10_10", "link_negatives": "fixed"}
            report.cells.setdefault(t, {})[m] = {"status": "ok", "hyperparameters": hp,
                                                 "protocol": {"name": "paper", "switches": switches}}
    text = "\n".join(protocol(collect_facts(report, "GCN", MODELS)))
    assert "hidden channels 32" in text and "5 epochs" in text and "**Node splits**: random per seed" in text
    assert "`paper`" in text and "overridden: `link_split: 10_10`" in text  # link_negatives: fixed is the paper's
    assert "Switches: `link_split: 10_10`; `link_negatives: fixed`" in text
    assert "on_missing" not in text  # no cell's data was unavailable
