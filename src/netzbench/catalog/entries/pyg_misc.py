"""PyG-wrapped benchmarks of the finance, vision, physics and security categories.

None of these are in the offline mirror (a mirror may add them as
``<dataset id>/raw/<file>``, see each source's ``mirror_path``). Archives
that hold thousands of files (ModelNet, ShapeNet, MalNet, OGB) are fetched
as one raw file each and unpacked by the processors
(:mod:`netzbench.catalog.readers.pyg_misc` and ``.pyg_vision``). No upstream publishes
checksums for these files, so ``sha256`` is unknown (None) throughout.
"""

from __future__ import annotations

import dataclasses

from ..readers import pyg_misc, pyg_vision
from ..table import Dataset, RawFile, Source, TaskSpec, add_dataset, add_task



def _raw(*names: str) -> tuple[RawFile, ...]:
    """Raw files kept under the same name in ``<mirror>/<id>/raw/`` (base name in the mirror)."""
    return tuple(RawFile(n, f"raw/{n.rsplit('/', 1)[-1]}") for n in names)


_ELLIPTIC = ("elliptic_txs_features.csv", "elliptic_txs_edgelist.csv", "elliptic_txs_classes.csv")
_SHAPENET_ZIP = "shapenetcore_partanno_segmentation_benchmark_v0_normal.zip"

# ------------------------------------------------------------------ finance

add_dataset(Dataset(
    id="elliptic_bitcoin",
    name="Elliptic Bitcoin transactions",
    category="finance",
    families=("node_cls",),
    description=(
        "203,769 Bitcoin transactions (nodes) and 234,355 directed payment flows (edges) over 49 "
        "time steps, 165 anonymised features; 4,545 illicit (1) and 42,019 licit (0) transactions, "
        "the rest unknown (y = -1, in no mask). Split by time as PyG defines it (train steps 1-34, "
        "test 35-49, labelled nodes only); PyG has no validation mask, so steps 30-34 are "
        "validation and 1-29 train. Edges are kept directed as published."
    ),
    license=(
        "not stated by the source in the files; released by Elliptic on Kaggle for research; cite "
        "Weber et al. 2019"
    ),
    citation=(
        "M. Weber et al., Anti-Money Laundering in Bitcoin: Experimenting with Graph Convolutional "
        "Networks for Financial Forensics, KDD Workshop on Anomaly Detection in Finance, 2019"
    ),
    processor=pyg_misc.elliptic_bitcoin,
    metric="roc_auc",
    metric_source=("netzbench: binary with 9.8 % illicit among the labelled transactions, scored by ROC-AUC as "
                   "Platonov et al. 2023 score their imbalanced binary tasks; Weber et al. 2019 report the "
                   "illicit class's F1, which netzbench does not compute"),
    sources=(
        Source("files", "https://data.pyg.org/datasets/elliptic/{file}", "elliptic-csv-zip",
               _raw(*(f"{n}.zip" for n in _ELLIPTIC))),
        # the original release (needs a Kaggle account; listed so a mirror may hold the plain CSVs)
        Source("zip", "https://www.kaggle.com/api/v1/datasets/download/ellipticco/elliptic-data-set",
               "elliptic-csv", _raw(*_ELLIPTIC)),
    ),
))
add_dataset(Dataset(
    id="ogbn_products",
    name="ogbn-products",
    category="finance",
    families=("node_cls",),
    description=(
        "Amazon product co-purchasing network (OGB): 2,449,029 products, 61,859,140 undirected "
        "co-purchase edges, 100-d bag-of-words features, 47 sales categories; OGB's sales-ranking "
        "split as masks. Needs the optional 'ogb' package (pip install 'netzbench[ogb]'). Large: "
        "the raw zip is ~1.4 GB and processing needs roughly 10 GB of memory. Above train.sampling's threshold "
        "(4 M message-passing edges) it trains on neighbour-sampled mini-batches and evaluates "
        "exactly layer by layer: one epoch of each roster model fits in 24 GB on a CPU "
        "(benchmarks/bench_products.py); full-batch training needs a large GPU."
    ),
    license="Amazon license (as listed by OGB); cite Hu et al. 2020 and Bhatia et al. 2016",
    citation="W. Hu et al., Open Graph Benchmark: Datasets for Machine Learning on Graphs, NeurIPS 2020",
    processor=pyg_misc.ogbn_products,
    sources=(Source("files", "http://snap.stanford.edu/ogb/data/nodeproppred/{file}", "ogb-zip",
                    _raw("products.zip")),),
))

# ------------------------------------------------------------------- vision

add_dataset(Dataset(
    id="shapenet",
    name="ShapeNet part segmentation",
    category="vision",
    families=("node_cls",),
    description=(
        "ShapeNet part-level segmentation: 16,881 point clouds of 16 object categories, each point "
        "labelled with one of 50 parts. Node classification over a collection is stored as ONE graph "
        "that is the disjoint union of a k-nearest-neighbour graph per shape (256 points sampled "
        "per shape, k = 6, symmetrised), so it fits the single-graph layout unchanged. Node "
        "features: position, normal and the one-hot shape category (22); masks = nodes of the "
        "canonical train/val/test shapes. About 4.3 M nodes and ~17 M edges, above train.sampling's "
        "threshold: it trains on neighbour-sampled mini-batches (full batch, set train.sampling.mode: "
        "full, needs several GB of memory). The raw zip is ~0.7 GB."
    ),
    license="ShapeNet terms of use (non-commercial research and education); cite Yi et al. 2016 and Chang et al. 2015",
    citation=(
        "L. Yi et al., A Scalable Active Framework for Region Annotation in 3D Shape Collections, "
        "SIGGRAPH Asia 2016"
    ),
    processor=pyg_vision.shapenet,
    sources=(Source("files", "https://shapenet.cs.stanford.edu/media/{file}", "shapenet-zip",
                    _raw(_SHAPENET_ZIP)),),
))
add_dataset(Dataset(
    id="mnist_superpixels",
    name="MNIST superpixels",
    category="vision",
    families=("graph_cls",),
    description=(
        "MNIST digits as graphs of 75 superpixels (PyG MNISTSuperpixels; node feature: intensity). "
        "As in the paper, the processor keeps the first 1,500 of the 60,000 training graphs "
        "(processor parameter num_graphs=1500; None keeps all 70,000); 10 classes."
    ),
    license=("MNIST: CC BY-SA 3.0 (as commonly cited; not stated in the files); cite LeCun et al. 1998 "
             "and Monti et al. 2017"),
    citation="F. Monti et al., Geometric Deep Learning on Graphs and Manifolds Using Mixture Model CNNs, CVPR 2017",
    processor=pyg_vision.mnist_superpixels,
    sources=(Source("zip", "https://data.pyg.org/datasets/MNISTSuperpixels.zip", "pyg-pt",
                    _raw("MNISTSuperpixels.pt")),),
))
add_dataset(Dataset(
    id="cifar10_superpixels",
    name="CIFAR-10 superpixels",
    category="vision",
    families=("graph_cls",),
    description=(
        "CIFAR-10 images as SLIC superpixel graphs (Benchmarking-GNNs; PyG GNNBenchmarkDataset "
        "'CIFAR10'): 60,000 graphs of ~118 nodes, 8-NN edges; node features mean RGB + position "
        "(5); 10 classes; canonical 45k/5k/10k split in `split`. About 7 M nodes in all."
    ),
    license="not stated by the source; cite Krizhevsky 2009 and Dwivedi et al. 2020",
    citation="V. P. Dwivedi et al., Benchmarking Graph Neural Networks, JMLR 2023 (arXiv 2003.00982)",
    processor=pyg_vision.cifar10_superpixels,
    sources=(Source("zip", "https://data.pyg.org/datasets/benchmarking-gnns/CIFAR10_v2.zip", "pyg-pt",
                    _raw("CIFAR10_v2.pt")),),
))
for _n, _url, _graphs in (
    ("10", "http://3dvision.princeton.edu/projects/2014/3DShapeNets/{file}", "4,899"),
    ("40", "http://modelnet.cs.princeton.edu/{file}", "12,311"),
):
    add_dataset(Dataset(
        id=f"modelnet{_n}",
        name=f"ModelNet{_n}",
        category="vision",
        families=("graph_cls",),
        description=(
            f"ModelNet{_n}: {_graphs} CAD meshes of {_n} object categories. Transform: each mesh is "
            "centred and scaled into the unit ball, vertices are merged on a 24^3 grid (vertex "
            "clustering; full meshes average ~10-18k vertices), and the graph's edges are the "
            "triangle sides between the merged vertices (face edges, both directions). Node "
            "features: normalised xyz. Canonical train/test folders in `split`, with every 10th "
            "training mesh per category as validation."
        ),
        license="Princeton ModelNet: academic research use (not stated in the files); cite Wu et al. 2015",
        citation="Z. Wu et al., 3D ShapeNets: A Deep Representation for Volumetric Shapes, CVPR 2015",
        processor=pyg_vision.modelnet,
        sources=(Source("files", _url, "modelnet-zip", _raw(f"ModelNet{_n}.zip")),),
    ))

# ------------------------------------------------------------------ physics

add_dataset(Dataset(
    id="qm9",
    name="QM9",
    category="physics",
    families=("graph_reg",),
    description=(
        "130,831 small organic molecules (up to 9 heavy atoms) with DFT-computed properties (PyG "
        "QM9, processed release). Nodes are atoms (11 PyG atom features), edges bonds. Targets "
        "(float32 [G, 12], PyG units): dipole moment, polarizability, HOMO, LUMO, gap, <R^2>, ZPVE, "
        "heat capacity and the four atomization energies (PyG targets 0-6, 11-15); the total "
        "energies (7-10) and rotational constants (16-18) are left out (processor parameter "
        "`targets`)."
    ),
    license="not stated by the source; cite Ramakrishnan et al. 2014 and Wu et al. 2018 (MoleculeNet)",
    citation=(
        "R. Ramakrishnan et al., Quantum chemistry structures and properties of 134 kilo molecules, "
        "Scientific Data 2014; Z. Wu et al., MoleculeNet, Chemical Science 2018"
    ),
    processor=pyg_misc.qm9,
    sources=(Source("zip", "https://data.pyg.org/datasets/qm9_v3.zip", "pyg-pt", _raw("qm9_v3.pt")),),
))
_ZINC_INDEX = "https://raw.githubusercontent.com/graphdeeplearning/benchmarking-gnns/master/data/molecules/{file}"

add_dataset(Dataset(
    id="zinc",
    name="ZINC (12k subset)",
    category="physics",
    families=("graph_reg",),
    description=(
        "The 12,000-molecule ZINC subset of Benchmarking-GNNs (PyG ZINC, subset=True): nodes are "
        "atoms (one-hot of 28 atom types), edges bonds; target: constrained solubility "
        "(logP - SAS - cycles), float32 [G, 1]; canonical 10k/1k/1k split in `split`. The raw "
        "pickles hold the full 250k-molecule ZINC; the subset is chosen by the three .index files."
    ),
    license="not stated by the source; cite Irwin et al. 2012, Gomez-Bombarelli et al. 2018, Dwivedi et al. 2020",
    citation="V. P. Dwivedi et al., Benchmarking Graph Neural Networks, JMLR 2023 (arXiv 2003.00982)",
    processor=pyg_misc.zinc,
    # the pickles come in molecules.zip; the .index files are published on their own
    sources=(Source("zip", "https://www.dropbox.com/s/feo9qle74kg48gy/molecules.zip?dl=1", "zinc-pickle",
                    _raw("train.pickle", "val.pickle", "test.pickle") + tuple(
                        dataclasses.replace(f, url=_ZINC_INDEX.format(file=f.name))
                        for f in _raw("train.index", "val.index", "test.index"))),),
))

# ----------------------------------------------------------------- security

add_dataset(Dataset(
    id="malnet_tiny",
    name="MalNet-Tiny",
    category="security",
    families=("graph_cls",),
    description=(
        "5,000 Android function-call graphs (<= 5k nodes each) labelled with one of 5 types (benign "
        "and four malware types), PyG MalNetTiny; directed call edges; no node features upstream, "
        "so x = [1, log(1 + degree)]; canonical train/val/test split in `split`."
    ),
    license="not verified offline (the MalNet site states its terms); cite Freitas et al. 2021",
    citation=("S. Freitas et al., A Large-Scale Database for Graph Representation Learning, NeurIPS "
              "Datasets and Benchmarks 2021"),
    processor=pyg_misc.malnet_tiny,
    sources=(Source("files", "http://malnet.cc.gatech.edu/{file}", "malnet-archives",
                    _raw("graph-data/malnet-graphs-tiny.tar.gz", "split-info/split_info_tiny.zip")),),
))

# -------------------------------------------------------------------- tasks

for _task, _family, _epochs, _split, _desc in (
    ("elliptic_bitcoin", "node_cls", 100, "dataset_masks",
     "Illicit vs licit Bitcoin transactions; temporal masks (train 1-29, val 30-34, test 35-49)."),
    ("ogbn_products", "node_cls", 100, "dataset_masks",
     "Product category prediction on ogbn-products; OGB sales-ranking split."),
    ("shapenet", "node_cls", 100, "dataset_masks",
     "Part segmentation as node classification on per-shape kNN graphs; canonical shape split."),
    ("mnist_superpixels", "graph_cls", 4, "random_graph_80_10_10",
     "MNIST superpixel digit classification on the first 1,500 graphs (paper headline: 4 epochs)."),
    ("cifar10_superpixels", "graph_cls", 40, "dataset_split",
     "CIFAR-10 superpixel image classification; canonical 45k/5k/10k split."),
    ("modelnet10", "graph_cls", 40, "dataset_split",
     "ModelNet10 mesh classification (face-edge graphs); canonical train/test, val from train."),
    ("modelnet40", "graph_cls", 40, "dataset_split",
     "ModelNet40 mesh classification (face-edge graphs); canonical train/test, val from train."),
    ("qm9", "graph_reg", 40, "random_graph_80_10_10",
     "QM9 molecular property regression (12 targets); molecules shuffled per seed and cut 80/10/10."),
    ("zinc", "graph_reg", 10, "dataset_split",
     "ZINC-12k constrained solubility regression; canonical 10k/1k/1k split (paper: 10 epochs)."),
    ("malnet_tiny", "graph_cls", 40, "dataset_split",
     "MalNet-Tiny call-graph type classification; canonical split."),
):
    add_task(TaskSpec(_task, _task, _family, _epochs, _split, _desc))
