"""The catalogue: one table of datasets and one of the benchmark tasks built on them.

A *dataset* says where raw bytes come from (canonical URLs in order, the
mirror folder, the sha256 of each raw file where known), what the data is
(category, families it can serve, license) and which processor turns raw
files into the processed bundle (for a synthetic dataset: which generator
makes an instance per seed). A *task* is a (dataset, family, split,
default epochs) combination; several tasks may share a dataset.

Entries name their processor by object (``processor=loaders.planetoid``), so
grep, an IDE and the import itself follow it; fetch records its
``"module:qualname"`` (:func:`callable_ref`). This module and the entries are
import-light all the same: the processors and generators import numpy at
import time but torch and torch_geometric only when they run, so the CLI lists
and validates tasks without torch.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable

from ..params import closest
from ..synthetic import physics, routing
from . import loaders

CATEGORIES = (
    "combinatorial",
    "biology",
    "social",
    "knowledge",
    "infrastructure",
    "finance",
    "computing",
    "vision",
    "physics",
    "security",
)


@dataclass(frozen=True)
class RawFile:
    """One raw file: its name in the raw directory, its path in the mirror, its sha256,
    (optionally) its own URL when a dataset's files live on several hosts, and its git blob
    SHA-1 (``git hash-object``) where the upstream repository's tree is all that vouches for
    its bytes: fetch checks it like the sha256."""

    name: str
    mirror_path: str | None = None
    sha256: str | None = None
    url: str | None = None
    git_blob: str | None = None


@dataclass(frozen=True)
class Source:
    """One accepted source of a dataset's raw files, in one format.

    ``kind`` is ``"files"`` (``url`` is a template with ``{file}``, fetched once
    per raw file), ``"zip"`` or ``"tar"`` (one archive; members are matched to
    ``files`` by base name). ``format`` names the reader the processor uses
    (e.g. ``"planetoid"``, ``"tu"``, ``"netzschleuder-csv"``, ``"gml"``).
    ``files`` lists the raw files this source yields; a file with a
    ``mirror_path`` can also be taken from the mirror folder of the dataset.
    A dataset may list several sources (say the Netzschleuder zip and a GML
    export); they are tried in order.
    """

    kind: str
    url: str
    format: str
    files: tuple[RawFile, ...] = ()

    @property
    def in_mirror(self) -> bool:
        return bool(self.files) and all(f.mirror_path for f in self.files)


@dataclass(frozen=True)
class Dataset:
    id: str
    name: str
    category: str
    families: tuple[str, ...]
    description: str
    license: str
    citation: str
    #: the processor, a module-level function ``(raw_dir, format) -> (arrays, counts[, dropped])``; of a
    #: synthetic dataset, its generator ``(seed, **generator_params) -> (arrays, counts)``
    processor: Callable
    sources: tuple[Source, ...] = ()
    mirror: str | None = None  # folder in the mirror (shared/datasets/<mirror>)
    synthetic: bool = False
    builtin: bool = False  # shipped inside a package (no download)
    in_paper: bool = True
    generator_params: dict = field(default_factory=dict)
    #: generator parameters that reproduce the reference implementation's instances
    #: (used under the ``synthetic_graphs: reference`` switch, i.e. ``protocol: paper``)
    reference_params: dict = field(default_factory=dict)
    #: the metric the dataset's authors score it by (:data:`netzbench.families.METRIC_SERIES`: accuracy,
    #: roc_auc) and where that choice comes from; None: the family's default. Fetch writes it into
    #: ``meta.json`` (and so into the task spec and every seed's key) only where it is not the default
    metric: str | None = None
    metric_source: str | None = None

    @property
    def needs_download(self) -> bool:
        return not (self.synthetic or self.builtin)

    @property
    def processor_ref(self) -> str:
        """The processor's recorded name (meta.json's ``generator`` of a synthetic task, part of the
        fingerprint of a processed download): :func:`callable_ref`."""
        return callable_ref(self.processor)


def callable_ref(fn: Callable) -> str:
    """``"module:qualname"`` of a module-level function: the name :func:`netzbench.paths.import_ref`
    resolves back to ``fn``, and the one fetch records for a processor."""
    return f"{fn.__module__}:{fn.__qualname__}"


@dataclass(frozen=True)
class TaskSpec:
    id: str
    dataset: str
    family: str
    #: the task's epoch budget (paper tasks: Section 3.1, pinned to the reference implementation); fetch
    #: writes it into meta.json and training uses it unless ``train.epochs.<id>`` overrides it
    epochs: int
    split: str
    description: str
    relational: bool = False
    in_paper: bool = True

    @property
    def seed_aware(self) -> bool:
        return DATASETS[self.dataset].synthetic


_PLANETOID_SUFFIXES = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")
#: where the Planetoid files (Cora, CiteSeer, PubMed) are published
PLANETOID_URL = "https://github.com/kimiyoung/planetoid/raw/master/data/{file}"

_CORA_SHA = {
    "x": "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab",
    "tx": "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a",
    "allx": "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543",
    "y": "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1",
    "ty": "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad",
    "ally": "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71",
    "graph": "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d",
    "test.index": "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875",
}

_MUTAG_SHA = {
    "MUTAG_A.txt": "d9656ca7493f3445d737c711710bb36fd432dddd1c0ea32e1d4713c86ebd28e2",
    "MUTAG_edge_labels.txt": "4669ce755075ff86c3240709345745886400908fa637a49310459b9c267b3e56",
    "MUTAG_graph_indicator.txt": "7d520a4d6c7961c0cdeabe076d8fe27e795b6d373485c9a2b744987e560a2056",
    "MUTAG_graph_labels.txt": "a1518ea39ba3426bd42f57396b9c4baffe68e9adc718caeeab0119c6591a5f2c",
    "MUTAG_node_labels.txt": "678f429965490e84dd27713017538c995fc05d1621beac910848b600015ee863",
}


def planetoid_files(name: str, sha: dict[str, str]) -> tuple[RawFile, ...]:
    """The eight raw files ``ind.<name>.*`` of a Planetoid dataset, under ``raw/`` in a mirror folder."""
    return tuple(
        RawFile(f"ind.{name}.{s}", f"raw/ind.{name}.{s}", sha.get(s)) for s in _PLANETOID_SUFFIXES
    )


DATASETS: dict[str, Dataset] = {}
TASKS: dict[str, TaskSpec] = {}


def add_dataset(ds: Dataset) -> None:
    if ds.category not in CATEGORIES and not (ds.category == "custom" and not ds.in_paper):
        raise ValueError(f"{ds.id}: unknown category {ds.category!r}")
    if ds.id in DATASETS:
        raise ValueError(f"dataset {ds.id!r} is registered twice")
    if ds.metric is not None:
        from ..families import METRIC_FAMILIES, METRIC_SERIES

        if ds.metric not in METRIC_SERIES or not set(ds.families) <= set(METRIC_FAMILIES):
            raise ValueError(f"{ds.id}: metric {ds.metric!r} is not one a {'/'.join(ds.families)} task can be "
                             f"scored by ({', '.join(sorted(METRIC_SERIES))}, node classification only)")
        if not ds.metric_source:
            raise ValueError(f"{ds.id}: metric {ds.metric!r} needs its metric_source (who scores it so)")
    fn = ds.processor
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    # fetch records the processor by name and training imports a generator by it: the name must lead back
    if getattr(sys.modules.get(module), name, None) is not fn:
        raise ValueError(f"{ds.id}: the processor must be a module-level function (fetch records it as "
                         f"'module:qualname'), got {fn!r}")
    DATASETS[ds.id] = ds


def add_task(task: TaskSpec) -> None:
    if task.dataset not in DATASETS:
        raise ValueError(f"task {task.id}: unknown dataset {task.dataset!r}")
    if task.family not in DATASETS[task.dataset].families:
        raise ValueError(f"task {task.id}: dataset {task.dataset} does not serve {task.family}")
    if task.id in TASKS:
        raise ValueError(f"task {task.id!r} is registered twice")
    TASKS[task.id] = task


add_dataset(Dataset(
    id="random_tsp",
    name="Random Euclidean TSP",
    category="combinatorial",
    families=("link_pred",),
    description=(
        "n cities uniform in the unit square; the graph is a short tour through them "
        "(nearest-neighbour tour improved by 2-opt to a local optimum) plus each city's "
        "k nearest neighbours. Node features are the coordinates. Link prediction asks "
        "which held-out city pairs are joined, i.e. which short connections a good tour "
        "and its candidate neighbourhood use. Under the paper protocol the graph is the "
        "reference implementation's: each city's 4 nearest neighbours, no tour."
    ),
    license="synthetic (generated, no license needed)",
    citation="netzbench generator; TSP as in Kool et al. (2019) style random instances",
    processor=routing.random_tsp,
    synthetic=True,
    generator_params={"num_nodes": 200, "k_neighbors": 3},
    reference_params={"k_neighbors": 4, "tour": False},
))
add_dataset(Dataset(
    id="ising_lattice",
    name="Ising lattice",
    category="physics",
    families=("link_pred",),
    description=(
        "An L x L square lattice with periodic boundaries; the node feature is the spin "
        "(+1/-1) of an equilibrium 2-D Ising configuration sampled by Metropolis sweeps "
        "at temperature T. Link prediction asks which held-out lattice bonds exist: a test "
        "of whether a model recovers the geometry from the remaining bonds and the spin "
        "field. Under the paper protocol it is the reference implementation's lattice: open "
        "boundaries, diagonal neighbours, a self-loop per node, independent spins."
    ),
    license="synthetic (generated, no license needed)",
    citation="netzbench generator; 2-D Ising model (Onsager 1944)",
    processor=physics.ising_lattice,
    synthetic=True,
    generator_params={"side": 20, "temperature": 2.27, "sweeps": 50},
    reference_params={"lattice": "reference_grid", "spins": "independent"},
))
add_dataset(Dataset(
    id="karate",
    name="Zachary's karate club",
    category="social",
    families=("node_cls", "link_pred"),
    description="34 club members, 78 friendships; 4 communities (PyG KarateClub labels).",
    license="public domain (published in Zachary 1977)",
    citation="W. W. Zachary, An information flow model for conflict and fission in small groups, 1977",
    processor=loaders.karate,
    builtin=True,
))
add_dataset(Dataset(
    id="cora",
    name="Cora",
    category="social",
    families=("node_cls", "link_pred"),
    description="Citation network, 2,708 papers, 7 classes, bag-of-words features, Planetoid split.",
    license="MIT (kimiyoung/planetoid)",
    citation="Sen et al. 2008; Yang, Cohen, Salakhutdinov 2016 (Planetoid split)",
    processor=loaders.planetoid,
    sources=(Source("files", PLANETOID_URL, "planetoid", planetoid_files("cora", _CORA_SHA)),),
    mirror="cora",
))
add_dataset(Dataset(
    id="mutag",
    name="MUTAG",
    category="biology",
    families=("graph_cls",),
    description="188 nitroaromatic compounds, mutagenic or not (TUDataset).",
    license="TUDataset terms (cite Debnath et al. 1991 and Morris et al. 2020)",
    citation="Debnath et al. 1991; Morris et al. 2020 (TUDataset)",
    processor=loaders.tudataset,
    sources=(Source("zip", "https://www.chrsmrrs.com/graphkerneldatasets/MUTAG.zip", "tu",
                    tuple(RawFile(name, f"raw/{name}", sha) for name, sha in _MUTAG_SHA.items())),),
    mirror="mutag",
))

add_task(TaskSpec("random_tsp", "random_tsp", "link_pred", 80, "random_edge_80_10_10",
                   "Link prediction on random Euclidean TSP instances (one instance per seed)."))
add_task(TaskSpec("ising_lattice", "ising_lattice", "link_pred", 60, "random_edge_80_10_10",
                   "Link prediction on a 2-D Ising lattice (one spin sample per seed)."))
add_task(TaskSpec("karate", "karate", "node_cls", 100, "stratified_per_seed_50_25_25",
                   "Community labels of Zachary's karate club; stratified 50/25/25 node split per seed.",
                   in_paper=True))
add_task(TaskSpec("cora", "cora", "node_cls", 100, "planetoid",
                   "Cora node classification on the public Planetoid split (140/500/1000)."))
add_task(TaskSpec("mutag", "mutag", "graph_cls", 40, "random_graph_80_10_10",
                   "MUTAG graph classification; graphs shuffled per seed and cut 80/10/10."))


class UnknownTaskError(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0])


def get_task(task_id: str) -> TaskSpec:
    try:
        return TASKS[task_id]
    except KeyError:
        # not the whole list: 68 names bury the one that matters; `netzbench tasks` has them with what they are
        raise UnknownTaskError(
            f"unknown task {task_id!r}{closest(task_id, sorted(TASKS))}; `netzbench tasks` lists the catalogue's {len(TASKS)} tasks "
            "(or declare it under `custom_tasks` in params.yaml)"
        ) from None


def get_dataset(dataset_id: str) -> Dataset:
    try:
        return DATASETS[dataset_id]
    except KeyError:
        raise UnknownTaskError(
            f"unknown dataset {dataset_id!r}; known datasets: {', '.join(sorted(DATASETS))}"
        ) from None


# the rest of the catalogue: one module per category under entries/
from . import entries  # noqa: E402,F401
