"""A user model's families and baseline kind are remembered per version of its source: a train stage
after the first plans the candidate's cells without importing it (and torch)."""

import json
import sys

import pytest

from netzbench import model_traits as traits_mod
from netzbench.model_traits import model_traits
from netzbench.models.registry import ModelError
from netzbench.run.plan import _families

MODEL = '''
import torch

class {name}(torch.nn.Module):
    task_types = {families!r}
    baseline = {baseline!r}

    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.lin = torch.nn.Linear(in_channels, out_channels)

    def forward(self, x, edge_index):
        return self.lin(x)
'''


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A ``traitsmodels`` package on the path and a private cache; yields a writer of its module."""
    pkg = tmp_path / "traitsmodels"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))

    def write(families=("node_cls",), baseline=None, name="Net"):
        (pkg / "net.py").write_text(MODEL.format(name=name, families=list(families), baseline=baseline))
        sys.modules.pop("traitsmodels.net", None)
        sys.modules.pop("traitsmodels", None)

    yield write, tmp_path / "cache" / "models"
    sys.modules.pop("traitsmodels.net", None)
    sys.modules.pop("traitsmodels", None)


def _imports(monkeypatch):
    """Count the imports model_traits makes (resolve_model), still importing."""
    from netzbench.models import registry

    calls = []
    real = registry.resolve_model
    monkeypatch.setattr(registry, "resolve_model", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    return calls


def test_a_models_traits_are_imported_once_per_source(package, monkeypatch):
    write, folder = package
    write(families=("node_cls", "link_pred"), baseline="structure_free")
    calls = _imports(monkeypatch)
    assert model_traits("traitsmodels.net:Net") == (frozenset({"node_cls", "link_pred"}), "structure_free")
    assert calls == ["traitsmodels.net:Net"]
    (entry,) = folder.glob("*.json")
    assert json.loads(entry.read_text())["task_types"] == ["link_pred", "node_cls"]

    sys.modules.pop("traitsmodels.net", None)  # a new stage's process: nothing imported
    assert _families("traitsmodels.net:Net", {"heads": 2}, None) == (frozenset({"node_cls", "link_pred"}),
                                                                    "structure_free")
    assert calls == ["traitsmodels.net:Net"] and "traitsmodels.net" not in sys.modules

    write(families=("graph_cls",))  # the source changed: imported again, the new answer
    assert model_traits("traitsmodels.net:Net") == (frozenset({"graph_cls"}), None)
    assert len(calls) == 2 and len(list(folder.glob("*.json"))) == 2


def test_a_damaged_entry_is_ignored_and_rewritten(package, monkeypatch):
    write, folder = package
    write()
    model_traits("traitsmodels.net:Net")
    (entry,) = folder.glob("*.json")
    for damaged in ("{not json", json.dumps({"key": "another", "task_types": ["node_cls"], "baseline": None}),
                    json.dumps({"key": entry.stem, "task_types": ["everything"], "baseline": None})):
        entry.write_text(damaged)
        calls = _imports(monkeypatch)
        assert model_traits("traitsmodels.net:Net") == (frozenset({"node_cls"}), None)
        assert calls == ["traitsmodels.net:Net"]  # imported, not trusted
        assert json.loads(entry.read_text())["task_types"] == ["node_cls"]


def test_a_model_that_does_not_resolve_is_an_error_and_not_remembered(package, monkeypatch):
    """Its entry holds the error (a process waiting for the answer stops waiting), which reads as unknown:
    the next call imports it again and raises again."""
    write, folder = package
    write()
    calls = _imports(monkeypatch)
    for _ in range(2):
        with pytest.raises(ModelError, match="NoSuchClass"):
            model_traits("traitsmodels.net:NoSuchClass")
        assert not traits_mod.remembered("traitsmodels.net:NoSuchClass") and traits_mod.answered("traitsmodels.net:NoSuchClass")
    assert calls == ["traitsmodels.net:NoSuchClass"] * 2
    with pytest.raises(ModelError):
        model_traits("traitsmodels.missing:Net")
    assert all("error" in json.loads(p.read_text()) and "task_types" not in json.loads(p.read_text())
               for p in folder.glob("*.json"))


def test_a_process_importing_a_model_makes_the_others_wait_for_its_answer(package, monkeypatch):
    """One import per model version at a time (run/prewarm.py imports a new candidate while the train stage
    starts): a caller that finds the lock held waits, then reads the answer instead of importing."""
    import threading
    import time

    write, _ = package
    write(families=("graph_reg",))
    calls = _imports(monkeypatch)
    answers = []
    with traits_mod.learning("traitsmodels.net:Net"):
        waiter = threading.Thread(target=lambda: answers.append(model_traits("traitsmodels.net:Net")))
        waiter.start()
        time.sleep(0.5)
        assert waiter.is_alive() and not answers  # waiting, not importing
        traits_mod.learn("traitsmodels.net:Net")  # what the lock's holder does
    waiter.join(30)
    assert answers == [(frozenset({"graph_reg"}), None)] and calls == ["traitsmodels.net:Net"]  # the holder's only


def test_a_lock_held_too_long_is_not_waited_for_forever(package, monkeypatch):
    write, _ = package
    write()
    monkeypatch.setattr(traits_mod, "LOCK_WAIT_S", 0.3)
    import threading

    out = []
    with traits_mod.learning("traitsmodels.net:Net"):
        t = threading.Thread(target=lambda: out.append(model_traits("traitsmodels.net:Net")))
        t.start()
        t.join(20)
    assert out == [(frozenset({"node_cls"}), None)]  # it imported the model itself after LOCK_WAIT_S


def test_an_unwritable_cache_costs_an_import_not_an_error(package, monkeypatch):
    write, folder = package
    write()
    monkeypatch.setattr(traits_mod.os, "replace", lambda *a: (_ for _ in ()).throw(OSError("read-only")))
    assert model_traits("traitsmodels.net:Net") == (frozenset({"node_cls"}), None)
    assert not list(folder.glob("*.json"))  # no temporary left behind either


def test_model_families_answers_for_every_kind_of_name(package, monkeypatch):
    from netzbench.model_traits import model_families

    write, _ = package
    write(families=("graph_reg",))
    assert model_families("GIN")[0] == frozenset({"graph_cls", "graph_reg"})  # the roster table, no import
    assert model_families("MLP")[1] == "structure_free"
    assert model_families("traitsmodels.net:Net") == (frozenset({"graph_reg"}), None)
    with pytest.raises(ModelError, match="unknown model"):
        model_families("NoSuchModel")


def test_a_model_module_that_raises_while_imported_is_a_model_error(package, tmp_path):
    """Not a traceback from the stage: the error names the model, what was raised, and where."""
    write, _ = package
    write()
    (tmp_path / "traitsmodels" / "broken.py").write_text("import math\nraise RuntimeError('no weights here')\n")
    with pytest.raises(ModelError, match=r"raised RuntimeError: no weights here \(at .*broken\.py:2\)"):
        model_traits("traitsmodels.broken:Net")
    assert traits_mod.answered("traitsmodels.broken:Net") and not traits_mod.remembered("traitsmodels.broken:Net")
