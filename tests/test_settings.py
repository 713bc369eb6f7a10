"""Settings: params.yaml resolved once into a frozen object; the typed protocol with one default per switch."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import re
from pathlib import Path

import pytest
from helpers import make_params

from netzbench import protocol as P
from netzbench.params import DEFAULTS, FAMILIES, load_params
from netzbench.settings import FrozenMap, Settings


def test_protocol_has_one_attribute_per_switch_defaulting_to_strict():
    fields = [f.name for f in dataclasses.fields(P.Protocol)]
    assert fields == [s.name for s in P.SWITCHES]
    assert P.Protocol().values() == {s.name: s.strict for s in P.SWITCHES}
    assert P.Protocol.of(None) == P.Protocol.of({}) == P.Protocol() == P.Protocol.resolve("strict")


def test_protocol_resolve_applies_the_preset_then_the_overrides():
    paper = P.Protocol.resolve("paper")
    assert paper.values() == {s.name: s.paper for s in P.SWITCHES}
    one = P.Protocol.resolve("paper", {"link_negatives": "fresh"})
    assert one.differences() == {"link_negatives": "fresh"}
    assert one.link_negatives == "fresh" and one.graph_split == "80_20"
    # a task's part of the switches, the rest at the (strict) defaults
    part = P.Protocol.of(paper.for_task("graph_reg"))
    assert (part.graph_split, part.regression_loss, part.link_negatives) == ("80_20", "mse", "fresh")
    assert P.Protocol.of(part) is part


@pytest.mark.parametrize("bad", [{"graph_split": "70_30"}, {"no_such_switch": "x"}])
def test_protocol_refuses_unknown_switches_and_values(bad):
    with pytest.raises((ValueError, TypeError)):
        P.Protocol.of(bad)
    with pytest.raises(ValueError, match="unknown protocol"):
        P.Protocol.resolve("lenient")


def test_settings_round_trip_to_the_validated_params():
    params = make_params(protocol="paper", protocol_overrides={"link_split": "10_10"}, model="GAT",
                         model_args={"heads": 2}, train={"model_config": {"GIN": {"layers": 3}},
                                                         "sampling": {"fanouts": [4, 3]}},
                         search={"space": {"lr": [0.1, 0.01]}}, report={"weights": {"random_tsp": 2.0}})
    settings = Settings.from_params(params)
    assert settings.to_params() == params
    assert settings.protocol == P.Protocol.resolve("paper", {"link_split": "10_10"})
    assert settings.candidate.model == "GAT" and settings.candidate.args == {"heads": 2}
    assert settings.model_config("GIN") == {"layers": 3} and settings.model_config("GCN") is None
    assert set(settings.train.optimisers) == set(FAMILIES)


def test_the_repository_params_round_trip():
    params = load_params("params.yaml")
    assert Settings.load("params.yaml").to_params() == params


def test_settings_are_frozen_and_travel():
    settings = Settings.from_params(make_params(model_args={"heads": 2}))
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.seeds = (1,)
    with pytest.raises(TypeError, match="read-only"):
        settings.candidate.args["heads"] = 3
    with pytest.raises(TypeError, match="read-only"):
        settings.train.epochs["random_tsp"] = 1
    assert isinstance(settings.train.epochs, FrozenMap)
    assert pickle.loads(pickle.dumps(settings)) == settings
    assert copy.deepcopy(settings) == settings
    assert hash(settings) == hash(pickle.loads(pickle.dumps(settings)))


def test_hyperparameters_are_the_dicts_params_gave():
    settings = Settings.from_params(make_params(train={"param_budget": 1000, "node_split": "random"}))
    hp = settings.train.hyperparameters("node_cls", 5)
    assert hp == {"hidden_channels": 64, "lr": 0.01, "weight_decay": 0.0005, "epochs": 5, "eval_every": 1,
                  "param_budget": 1000, "node_split": "random",
                  "sampling": {**DEFAULTS["train"]["sampling"]}}
    assert type(hp["sampling"]) is dict and type(hp["sampling"]["fanouts"]) is list
    assert "sampling" not in settings.train.hyperparameters("graph_cls", 5)
    assert settings.train.hyperparameters("link_pred", 5, relational=True)["parallel_edges"] == "fused"


def test_replace_validates_and_resolves_again():
    settings = Settings.from_params(make_params(protocol_overrides={"link_split": "5_10"}))
    other = settings.replace(protocol="paper", protocol_overrides={"graph_split": "80_10_10"}, seeds=[4],
                             train={"epochs": {"cora": 2}, "hidden_channels": 16})
    assert other.protocol == P.Protocol.resolve("paper", {"graph_split": "80_10_10"})
    assert other.seeds == (4,) and other.train.epochs == {"cora": 2} and other.train.hidden_channels == 16
    assert other.train.eval_every == settings.train.eval_every
    assert settings.protocol.link_split == "5_10"  # the original is unchanged
    from netzbench.errors import ParamsError

    with pytest.raises(ParamsError, match="seeds"):
        settings.replace(seeds=[])


def test_cells_and_the_candidate_placeholder():
    roster_only = Settings.from_params(make_params(models=["GCN", "GAT"]))
    assert roster_only.cells() == [("random_tsp", "GCN", "roster", None), ("random_tsp", "GAT", "roster", None)]
    assert roster_only.candidate_placeholder("random_tsp") == {"status": "no_candidate", "task": "random_tsp"}
    in_roster = roster_only.replace(model="GAT")
    assert in_roster.candidate_placeholder("x") == {"status": "in_roster", "task": "x", "model": "GAT"}
    variant = roster_only.replace(model="GAT", model_args={"heads": 2})
    assert variant.candidate_placeholder("x") is None
    assert variant.cells(["x"])[-1] == ("x", "GAT", "candidate", {"heads": 2})


# ------------------------------------------------------------------- no raw params below the entry points
#: modules that may index a mapping called ``params``, and why (none of them reads the run's params.yaml
#: below an entry point)
RAW_PARAMS_ALLOWED = {
    "params.py": "the validator: it checks the raw document, before Settings exist",
    "settings.py": "builds Settings from the validated params (and back, for replace)",
    "quick.py": "writes the quick profile's params.yaml for another checkout: edits the document",
    "report/experiments.py": "reads other experiments' params (dvc exp show) as data, for netzbench exps",
    "catalog/custom.py": "`params` there are a custom task's loader arguments, not params.yaml",
    "models/adapters.py": "`params` there are a function signature's parameters",
}
#: a lookup in a mapping named ``params``, ``exec_params``, ``rep_params``, ... (the catalogue's
#: ``generator_params`` and the like are a dataset's own arguments)
RAW_LOOKUP = re.compile(r"\b(?!generator_params|loader_params|reference_params|gen_params)\w*params(\[|\.get\()")


def _sources():
    root = Path(__file__).resolve().parents[1] / "src" / "netzbench"
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))}


def test_no_raw_params_lookups_below_the_entry_points():
    found = [f"{name}:{i}: {line.strip()}" for name, text in _sources().items() if name not in RAW_PARAMS_ALLOWED
             for i, line in enumerate(text.splitlines(), 1) if RAW_LOOKUP.search(line)]
    assert not found, "read the part of Settings instead:\n" + "\n".join(found)
    # the allow-list is no wider than it must be: each entry still needs it
    sources = _sources()
    assert all(RAW_LOOKUP.search(sources[name]) for name in RAW_PARAMS_ALLOWED)


def test_the_protocol_is_resolved_in_one_place_and_params_read_by_the_entry_points():
    for name, text in _sources().items():
        if name != "settings.py":
            assert "Protocol.resolve(" not in text, f"{name} resolves the protocol: read settings.protocol"
        if name not in ("settings.py", "params.py"):
            assert "load_params(" not in text, f"{name} reads params.yaml: take Settings from the entry point"
