"""Params that cannot hurt (issue 24): names that are paths, silent values, tracebacks and YAML bombs.

Every hostile input is fed where a user (or `dvc exp run -S`, or the Python API) would put it, and
each must stop with one clear error naming the offending key or value -- before anything is fetched,
trained, written or deleted.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import time
import tracemalloc

import pytest
import yaml
from click.testing import CliRunner

from netzbench.cli import main
from netzbench.params import DEFAULTS, ParamsError, _FREE_KEYS, load_params, merge, read_yaml, undo_hint, validate

from helpers import as_settings, REPO, make_params, write_package

#: ids that are paths: each would make fetch replace (rmtree) or train write a folder it does not own
PATH_IDS = ["../../victim", "/abs/path", "", ".", "..", "a/b", "a\0b", "x/", ".hidden", "-rf", "a..b", "x" * 101]

LOADER = "import torch\nfrom torch_geometric.data import Data\n" \
         "def ring(root):\n" \
         "    n = 20\n" \
         "    src = torch.arange(n); dst = (src + 1) % n\n" \
         "    return Data(x=torch.ones(n, 2), edge_index=torch.stack([torch.cat([src, dst]), torch.cat([dst, src])]),\n" \
         "                y=(src % 2))\n"


def _write(path, data) -> None:
    path.write_text(yaml.safe_dump(data, allow_unicode=True))


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A repository folder one level below ``tmp_path`` (so ``../victim`` is a folder of the test's own),
    with a sentinel folder beside it and one inside ``data/``, and an importable custom loader."""
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.syspath_prepend(str(repo))
    write_package(repo, "hostiledata", {"loaders": LOADER})
    for folder in (tmp_path / "victim", repo / "data" / "keep", tmp_path / "abs" / "path"):
        folder.mkdir(parents=True)
        (folder / "precious.txt").write_text("do not delete")
    _write(repo / "params.yaml", {"tasks": ["karate"], "models": ["GCN"], "seeds": [0],
                                  "train": {"epochs": {"karate": 2}}})
    return repo


def _untouched(repo) -> bool:
    """Whether every sentinel is still there and nothing was fetched or trained."""
    root = repo.parent
    return (all((f / "precious.txt").read_text() == "do not delete"
                for f in (root / "victim", repo / "data" / "keep", root / "abs" / "path"))
            and sorted(p.name for p in (repo / "data").iterdir()) == ["keep"] and not (repo / "metrics").exists())


# -- 1. a task id is a path ------------------------------------------------------------------------

@pytest.mark.parametrize("tid", PATH_IDS)
def test_a_custom_task_id_that_is_a_path_stops_fetch_and_deletes_nothing(project, tid):
    if tid == "/abs/path":
        tid = str(project.parent / "abs" / "path")
    _write(project / "params.yaml", {"tasks": [tid], "models": ["GCN"], "seeds": [0],
                                     "custom_tasks": {tid: {"loader": "hostiledata.loaders:ring", "family": "node_cls",
                                                            "epochs": 2}}})
    result = CliRunner().invoke(main, ["fetch", "--all"])
    assert result.exit_code == 2, result.output
    assert f"`custom_tasks` id {tid!r} is not a plain name" in result.output
    assert _untouched(project)


@pytest.mark.parametrize("key, value, message", [
    ("tasks", ["karate", "../victim"], "`tasks` entry '../victim' is not a plain name"),
    ("tasks", ["karate", 123], "`tasks` entry 123 is a number, not a name"),
    ("models", ["GCN", "../../x"], "`models` entry '../../x' is not a plain name"),
    ("models", ["GCN", "a/b:C"], "`models` entry 'a/b:C' is not a plain name"),
    ("models", ["GCN", "pkg..mod:C"], "`models` entry 'pkg..mod:C' is not a plain name"),
    ("model", "../x.py:Evil", "`model` '../x.py:Evil' is not a plain name"),
    ("model", "a\0b", "`model` 'a\\x00b' is not a plain name"),
])
def test_task_and_model_names_in_params_must_be_plain(project, key, value, message):
    _write(project / "params.yaml", {"tasks": ["karate"], "models": ["GCN"], "seeds": [0], key: value})
    for stage in (["fetch", "--all"], ["train", "karate", "GCN"], ["candidate", "karate"]):
        result = CliRunner().invoke(main, stage)
        assert result.exit_code == 2 and message in result.output, (stage, result.output)
    assert _untouched(project)


def test_an_integer_custom_task_id_says_to_quote_it(project):
    (project / "params.yaml").write_text("tasks: [karate]\nmodels: [GCN]\ncustom_tasks:\n"
                                         "  123: {loader: 'hostiledata.loaders:ring', family: node_cls}\n")
    with pytest.raises(ParamsError, match=r"`custom_tasks` id 123 is a number, not a name .*: quote it"):
        load_params(project / "params.yaml")
    (project / "params.yaml").write_text("tasks: ['123']\nmodels: [GCN]\ncustom_tasks:\n"
                                         "  '123': {loader: 'hostiledata.loaders:ring', family: node_cls}\n")
    assert list(load_params(project / "params.yaml")["custom_tasks"]) == ["123"]  # quoted, it is a name


@pytest.mark.parametrize("args", [["fetch", "../victim"], ["fetch", "karate", "/abs/path"], ["train", "../victim", "GCN"],
                                  ["train", ".", "GCN"], ["train", "karate", "../victim"], ["train", "karate", "a/b"],
                                  ["candidate", "../victim"], ["candidate", ""]])
def test_command_line_task_and_model_arguments_must_be_plain(project, args):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    bad = next(a for a in args[1:] if a not in ("karate", "GCN"))
    assert f"{bad!r} is not a plain name" in result.output
    assert _untouched(project)


def test_the_catalogue_and_roster_names_are_all_plain():
    from netzbench.catalog.table import DATASETS, TASKS
    from netzbench.models.roster import BUILTIN_MODELS
    from netzbench.params import unsafe_name

    assert len(TASKS) > 60
    assert [n for n in [*TASKS, *DATASETS] if unsafe_name(n)] == []
    assert [m for m in BUILTIN_MODELS if unsafe_name(m, model=True)] == []
    assert unsafe_name("user_models.example:MyGNN", model=True) is None
    assert unsafe_name("user_models.example:MyGNN") is not None  # a task id is never a reference


@pytest.mark.parametrize("name", ["../victim", "", ".", "..", "a/b", "a\0b", "x/", "/abs/path", 7])
def test_child_refuses_every_name_that_leaves_its_root(tmp_path, name):
    from netzbench.paths import UnsafePath, child

    with pytest.raises(UnsafePath, match="is not a plain name inside"):
        child(tmp_path, name)
    assert child(tmp_path, "cora") == tmp_path / "cora"


@pytest.mark.parametrize("tid", ["../victim", "", "."])
def test_fetch_itself_never_replaces_a_folder_outside_data_root(project, monkeypatch, tid):
    """Defence in depth: a bad id that got into the catalogue past every check still deletes nothing."""
    from netzbench.catalog import table
    from netzbench.catalog.data import fetch_task
    from netzbench.paths import UnsafePath

    monkeypatch.setitem(table.TASKS, tid, dataclasses.replace(table.TASKS["karate"], id=tid))
    with pytest.raises(UnsafePath, match=f"{tid!r} is not a plain name inside"):
        fetch_task(tid, as_settings(make_params()), project / "data")
    assert _untouched(project)


def test_the_python_api_refuses_path_names_before_anything_runs(project):
    from netzbench.api import Task, run_benchmark

    with pytest.raises(ValueError, match=r"task '\.\./victim' is not a plain name"):
        Task("../victim", "node_cls", lambda root: None)
    with pytest.raises(ParamsError, match=r"run_benchmark argument `models`: `models` entry '\.\./m' is not a plain"):
        run_benchmark(models={"../m": "GCN"}, tasks=["karate"], seeds=[0], data_root=project / "data", progress=False)
    with pytest.raises(ParamsError, match=r"`train\.node_cls\.lr` must be a number > 0, got nan"):
        run_benchmark(models={"GCN": "GCN"}, tasks=["karate"], seeds=[0], lr={"node_cls": (math.nan, 0.0)},
                      data_root=project / "data", progress=False)
    assert _untouched(project)


# -- 2. silent: rank_exclude typos, duplicate keys ------------------------------------------------

@pytest.mark.parametrize("report", [{"rank_exclude": ["pubmedd"]}, {"rank_tasks": ["karate", "pubmedd"]}])
def test_a_typo_in_rank_exclude_is_reported_as_one_in_rank_tasks(project, report):
    key = next(iter(report))
    _write(project / "params.yaml", {"tasks": ["karate"], "models": ["GCN"], "seeds": [0], "report": report})
    result = CliRunner().invoke(main, ["fetch", "--all"])
    assert result.exit_code == 2, result.output
    assert f"`report.{key}` entry 'pubmedd' is not a task of the catalogue or `custom_tasks` (did you mean " \
           "'pubmed'?)" in result.output
    # a catalogue task that this run does not train is no typo: narrowing `tasks` needs no edit there
    _write(project / "params.yaml", {"tasks": ["karate"], "models": ["GCN"], "seeds": [0],
                                     "report": {key: ["karate", "pubmed"] if key == "rank_tasks" else ["pubmed"]}})
    from netzbench.config import load_config

    assert getattr(load_config(project / "params.yaml").report, key)[-1] == "pubmed"


@pytest.mark.parametrize("text, key, lines", [
    ("tasks: [karate]\nmodels: [GCN]\ntasks: [cora]\n", "tasks", (1, 3)),
    ("tasks: [karate]\nmodels: [GCN]\ntrain:\n  node_cls:\n    lr: 0.1\n    weight_decay: 0.0\n    lr: 10.0\n",
     "lr", (5, 7)),
    ("tasks: [karate]\nmodels: [GCN]\nexec: {threads: 1, threads: 4}\n", "threads", (3, 3)),
])
def test_a_duplicate_key_at_any_level_names_the_key_and_both_lines(tmp_path, text, key, lines):
    path = tmp_path / "params.yaml"
    path.write_text(text)
    with pytest.raises(ParamsError) as err:
        load_params(path)
    assert str(err.value) == (f"{path}: key `{key}` is given twice in one mapping (lines {lines[0]} and {lines[1]}); "
                              "YAML would keep the last silently: remove one")


def test_a_merge_key_may_override_what_it_merges(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("tasks: [karate]\nmodels: [GCN]\ntrain:\n  node_cls: &opt {lr: 0.1, weight_decay: 0.0}\n"
                    "  link_pred:\n    <<: *opt\n    lr: 0.5\n")
    assert load_params(path)["train"]["link_pred"] == {"lr": 0.5, "weight_decay": 0.0}


# -- 3. tracebacks: sections of the wrong type, NaN and inf ---------------------------------------

@pytest.mark.parametrize("section", ["train", "exec", "report", "data", "train.node_cls", "train.link_pred"])
@pytest.mark.parametrize("value, shown", [(None, "null (leave the key out for the defaults)"), ([1, 2], "[1, 2]"),
                                          ("fast", "'fast'")])
def test_a_section_that_is_not_a_mapping_is_a_clear_error(tmp_path, section, value, shown):
    head, _, tail = section.partition(".")
    raw = {"tasks": ["karate"], "models": ["GCN"], head: {tail: value} if tail else value}
    _write(tmp_path / "params.yaml", raw)
    with pytest.raises(ParamsError) as err:
        load_params(tmp_path / "params.yaml")
    assert str(err.value) == (f"{tmp_path / 'params.yaml'}: `{section}` must be a mapping, got {shown}"
                              + undo_hint(tmp_path / "params.yaml"))


def test_null_means_nothing_set_where_that_is_documented(tmp_path):
    _write(tmp_path / "params.yaml", {"tasks": ["karate"], "models": ["GCN"], "custom_tasks": None, "model_args": None,
                                      "protocol_overrides": None, "search": None,
                                      "train": {"model_config": None, "epochs": None}})
    p = load_params(tmp_path / "params.yaml")
    assert p["custom_tasks"] == p["model_args"] == p["protocol_overrides"] == {}
    assert p["search"] == DEFAULTS["search"] and p["train"]["model_config"] == p["train"]["epochs"] == {}


NUMERIC = ["train.node_cls.lr", "train.graph_reg.weight_decay", "exec.timeout_s", "exec.max_rss_gb", "exec.warm_s",
           "report.alpha", "report.ci", "report.equivalence_margin", "report.weights.karate", "search.space.lr",
           "search.space.weight_decay"]


def _set(raw: dict, dotted: str, value) -> dict:
    *head, last = dotted.split(".")
    node = raw
    for key in head:
        node = node.setdefault(key, {})
    node[last] = [value] if dotted.startswith("search.space.") else value
    return raw


@pytest.mark.parametrize("key", NUMERIC)
@pytest.mark.parametrize("text", [".nan", ".inf", "-.inf", "1.0e+400"])
def test_every_numeric_param_rejects_nan_and_inf(tmp_path, key, text):
    """`timeout_s: .nan` turned the timeout off, `lr: .nan` failed after training, `equivalence_margin: .nan`
    crashed the report halfway: each is refused when params are read, naming the key."""
    raw = _set({"tasks": ["karate"], "models": ["GCN"]}, key, "PLACEHOLDER")
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(raw).replace("PLACEHOLDER", text))
    with pytest.raises(ParamsError) as err:
        load_params(path)
    shown = key.rsplit(".", 1)[0] if key.startswith(("report.weights", "search.space")) else key
    assert f"`{shown}" in str(err.value), str(err.value)


def test_a_huge_integer_is_no_number_either(tmp_path):
    with pytest.raises(ParamsError, match="`exec.timeout_s` must be null"):
        validate(merge(DEFAULTS, {"tasks": ["karate"], "models": ["GCN"], "exec": {"timeout_s": 10**400}}))


def _paths(spec: dict, where: tuple[str, ...] = ()):
    """Every key of ``spec`` (sections too), at any depth."""
    for key, default in spec.items():
        yield (*where, key)
        if isinstance(default, dict) and (*where, key) not in _FREE_KEYS:
            yield from _paths(default, (*where, key))


#: params with an entry in each mapping whose keys the user chooses, and the paths of those entries
FILLED = {"tasks": ["karate"], "models": ["GCN"], "model": "GAT", "model_args": {"heads": 2},
          "protocol_overrides": {"link_negatives": "fresh"},
          "custom_tasks": {"mine": {"loader": "hostiledata.loaders:ring", "family": "node_cls", "epochs": 2}},
          "train": {"model_config": {"GCN": {"dropout": 0.1}}, "epochs": {"karate": 2}},
          "search": {"space": {"lr": [0.01]}}, "report": {"weights": {"karate": 1.0}}}
ENTRIES = [("model_args", "heads"), ("protocol_overrides", "link_negatives"), ("custom_tasks", "mine"),
           ("train", "model_config", "GCN"), ("train", "epochs", "karate"), ("search", "space", "lr"),
           ("report", "weights", "karate"), *[("custom_tasks", "mine", k) for k in (
               "loader", "format", "path", "family", "label", "epochs", "category", "split", "name")]]
HOSTILE = [None, [], [1], [[1]], {}, {"a": 1}, {"a": [1]}, math.nan, math.inf, True, "x", 10**400, -1, 0.5, ""]


@pytest.fixture
def catalogue_restored():
    """The catalogue tables as they were, whatever custom tasks a test registered."""
    from netzbench.catalog import custom, table

    saved = [(d, dict(d)) for d in (table.TASKS, table.DATASETS, custom._REGISTERED)]
    yield
    for d, before in saved:
        d.clear()
        d.update(before)


@pytest.mark.parametrize("path", [*_paths(DEFAULTS), *ENTRIES], ids=".".join)
def test_any_value_anywhere_is_accepted_or_a_params_error_never_a_traceback(catalogue_restored, path):
    """Every key of the params (sections and the entries of user-named mappings), set to every hostile value:
    the checks of values and names accept it or raise ParamsError, never anything else."""
    from netzbench.config import check_names, configure

    base = merge(DEFAULTS, FILLED)
    for value in HOSTILE:
        params = copy.deepcopy(base)
        node = params
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = copy.deepcopy(value)
        try:
            check_names(configure(as_settings(validate(params))), source="params.yaml")
        except ParamsError:
            pass


def test_protocol_override_and_custom_entry_values_of_the_wrong_type_are_clear(tmp_path):
    from netzbench.catalog.custom import register_custom_tasks

    with pytest.raises(ParamsError, match=r"`protocol_overrides.link_negatives` must be one of \['fixed', 'fresh'\]"):
        make_params(protocol_overrides={"link_negatives": ["fixed"]})
    for entry, message in (({"loader": "a:b", "family": ["node_cls"]}, "`custom_tasks.odd.family` must be one of"),
                           ({"loader": "a:b", "family": "node_cls", "category": "art"}, "`custom_tasks.odd.category`"),
                           ({"loader": "a:b", "family": "node_cls", "name": ["x"]}, "`custom_tasks.odd.name` must be "
                                                                                     "text")):
        with pytest.raises(ParamsError, match=message):
            register_custom_tasks({"odd": entry})


def test_a_nan_warm_time_from_the_environment_is_refused(monkeypatch):
    from netzbench.run.warm import idle_seconds

    for value in ("nan", "inf", "-inf", "soon"):
        monkeypatch.setenv("NETZBENCH_WARM_S", value)
        with pytest.raises(ParamsError, match=f"NETZBENCH_WARM_S must be a number of seconds .*got '{value}'"):
            idle_seconds(as_settings({}).execution)
    monkeypatch.setenv("NETZBENCH_WARM_S", "2.5")
    assert idle_seconds(as_settings({}).execution) == 2.5


# -- 4. limits: what params may expand to ---------------------------------------------------------

def _bomb(levels: int = 9) -> str:
    """The billion laughs under train.model_config: 10**levels strings from a few hundred bytes of text."""
    lines = ["tasks: [karate]", "models: [GCN]", "train:", "  model_config:", "    GCN:",
             "      l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"      l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_a_yaml_anchor_bomb_is_refused_fast_and_small(project):
    path = project / "params.yaml"
    path.write_text(_bomb())
    assert len(path.read_bytes()) < 1000
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(ParamsError, match=r"expands to more than 100,000 values .*anchor bomb"):
            load_params(path)
        elapsed, (_, peak) = time.perf_counter() - start, tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 1.0 and peak < 5 * 2**20, (elapsed, peak)
    result = CliRunner().invoke(main, ["fetch", "--all"])  # the command line (and its arithmetic peek) alike
    assert result.exit_code == 2 and "anchor bomb" in result.output
    assert _untouched(project)


@pytest.mark.parametrize("text, message", [
    ("a: &x [1, *x]\n", "an alias refers to a collection that holds it"),
    ("a: " + "[" * 3000 + "]" * 3000 + "\n", "nested too deeply to read"),
    ("a: " + "[" * 70 + "]" * 70 + "\n", "nested more than 64 levels deep"),
    ("x: &d " + "[" * 40 + "]" * 40 + "\ny: " + "[" * 40 + "*d" + "]" * 40 + "\n", "nested more than 64 levels deep"),
    ("tasks: [" + "karate, " * 200_000 + "karate]\n", "larger than 1,048,576 bytes"),
])
def test_other_shapes_that_would_hurt_are_refused(tmp_path, text, message):
    path = tmp_path / "params.yaml"
    path.write_text(text)
    with pytest.raises(ParamsError, match=message):
        read_yaml(path)


def test_the_real_params_are_far_below_every_limit():
    from netzbench.params_file import MAX_NODES, _Loader, _expanded_size

    loader = _Loader((REPO / "params.yaml").read_bytes())
    values, depth = _expanded_size(loader.get_single_node(), "params.yaml")
    assert values < MAX_NODES / 100 and depth < 10
    assert read_yaml(REPO / "params.yaml") == yaml.safe_load((REPO / "params.yaml").read_text())


# -- 5. the same checks through `dvc exp run -S` --------------------------------------------------

@pytest.mark.parametrize("override, message", [
    ("tasks=[../victim]", "`tasks` entry '../victim' is not a plain name"),
    ("train.node_cls.lr=nan", "`train.node_cls.lr` must be a number > 0, got nan"),
    ("exec.timeout_s=inf", "`exec.timeout_s` must be null (no limit) or a number > 0, got inf"),
    ("report.equivalence_margin=nan", "`report.equivalence_margin` must be > 0, got nan"),
    ("train=null", "`train` must be a mapping, got null"),
])
def test_dvc_set_params_go_through_the_same_checks(tmp_path, override, message):
    """`dvc exp run -S` writes params.yaml (as below) and the stages read it back: same checks."""
    hydra = pytest.importorskip("dvc.utils.hydra")
    from netzbench.config import load_config

    path = tmp_path / "params.yaml"
    path.write_text((REPO / "params.yaml").read_text())
    hydra.apply_overrides(path, [override])
    with pytest.raises(ParamsError) as err:
        load_config(path)
    assert message in str(err.value)
