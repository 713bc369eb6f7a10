"""PyG/OGB-backed datasets of biology, social networks and knowledge graphs (Table 4).

Import-light: the processors named here, in :mod:`netzbench.catalog.readers.pyg_datasets` and
:mod:`netzbench.catalog.loaders`, import torch_geometric (and the optional ``ogb``) only when they run.

Mirror status (shared/datasets): proteins, enzymes, citeseer, minesweeper,
tolokers, fb15k_237 and wordnet18rr are complete; pubmed lacks
``ind.pubmed.allx`` and so comes out ``unavailable`` with a mirror. The other
datasets are not in the shared mirror; their files still carry a
``mirror_path`` (the layout a local mirror of them must use), so a mirror that
has them is used like any other.
"""

from __future__ import annotations

import dataclasses

from .. import loaders
from ..readers import pyg_datasets
from ..table import PLANETOID_URL, Dataset, RawFile, Source, TaskSpec, add_dataset, add_task, planetoid_files

_HETERO_URL = "https://github.com/yandex-research/heterophilous-graphs/raw/main/data/{file}"
_OGB_LICENSE_MOL = "MIT (OGB; molecules from MoleculeNet)"
_OGB_CITE = "Hu et al. 2020, Open Graph Benchmark: Datasets for Machine Learning on Graphs"


def _raw(names, sha: dict | None = None) -> tuple[RawFile, ...]:
    """Raw files kept under ``raw/`` in a mirror folder."""
    sha = sha or {}
    return tuple(RawFile(n, f"raw/{n}", sha.get(n)) for n in names)


def _ogb(names) -> tuple[RawFile, ...]:
    """OGB archive members, kept at their path inside the dataset folder (ogb reads that layout)."""
    return tuple(RawFile(n, n) for n in names)


# ------------------------------------------------------------------ biology

_PROTEINS_SHA = {
    "PROTEINS_A.txt": "4c4b33e272fc95cac6d27ed6d5d12b9a852c8610e91fff59f8f0dbdd5a20df67",
    "PROTEINS_graph_indicator.txt": "8d4ff1e852a5c28561e9bffb44cf9490bc552b13a3b6156dd12dc7f44e9afc4a",
    "PROTEINS_graph_labels.txt": "c0ef9810c440775252872318d0c8adc385588e14bc4c47a2c34aa96ee3c7cdcd",
    "PROTEINS_node_attributes.txt": "54eef829abb37e458a5fbf3a3c581e48e5810e220463c2cd951856b9ceb08f07",
    "PROTEINS_node_labels.txt": "f758e8ad3d6e3c026b50833d75f6f90735b94eb3345e4243707f495ca8afea8d",
}
_ENZYMES_SHA = {
    "ENZYMES_A.txt": "5553c84f8f562f3e199dfd27192174f485e85c44c1357661098668937a739cbf",
    "ENZYMES_graph_indicator.txt": "95ba0fa47eba6f02e6b754a215dc66d5b49de3f45f57a128514301a8d7ed5f46",
    "ENZYMES_graph_labels.txt": "04743e08967e61e65cdacbb90f8df6ee53742b3d2e7b84675b85ebac70506856",
    "ENZYMES_node_attributes.txt": "305a8fc3b12f79fb844ef3374d6a3c8ceeb4887dd4f86bbfe37932c4c5434e7b",
    "ENZYMES_node_labels.txt": "8263eb9b64efa231a5886343483ccfc0342f2407014763a8f738fd51c32ce770",
}

add_dataset(Dataset(
    id="proteins",
    name="PROTEINS",
    category="biology",
    families=("graph_cls",),
    description=(
        "1,113 proteins (TUDataset). Nodes are secondary-structure elements (helix, sheet, turn); "
        "edges join elements that are neighbours along the amino-acid sequence or close in 3-D space. "
        "Label: enzyme or not. Node features: one-hot element type (PyG default, no attributes)."
    ),
    license=("not stated by the source; cite Borgwardt et al. 2005, Dobson & Doig 2003 and "
             "Morris et al. 2020 (TUDataset)"),
    citation="Borgwardt et al. 2005; Dobson & Doig 2003; Morris et al. 2020 (TUDataset)",
    processor=loaders.tudataset,
    sources=(Source("zip", "https://www.chrsmrrs.com/graphkerneldatasets/PROTEINS.zip", "tu",
                    _raw(_PROTEINS_SHA, _PROTEINS_SHA)),),
    mirror="proteins",
))
add_dataset(Dataset(
    id="enzymes",
    name="ENZYMES",
    category="biology",
    families=("graph_cls",),
    description=(
        "600 enzyme tertiary structures from BRENDA (TUDataset), 100 per top-level EC class; nodes are "
        "secondary-structure elements, edges spatial/sequence neighbours. Label: one of 6 EC classes. "
        "Node features: one-hot element type (PyG default; the 18 continuous attributes are not used)."
    ),
    license=("not stated by the source; cite Borgwardt et al. 2005, Schomburg et al. 2004 and "
             "Morris et al. 2020 (TUDataset)"),
    citation="Borgwardt et al. 2005; Schomburg et al. 2004 (BRENDA); Morris et al. 2020 (TUDataset)",
    processor=loaders.tudataset,
    sources=(Source("zip", "https://www.chrsmrrs.com/graphkerneldatasets/ENZYMES.zip", "tu",
                    _raw(_ENZYMES_SHA, _ENZYMES_SHA)),),
    mirror="enzymes",
))

_LRGB = ("train.pt", "val.pt", "test.pt")
_LRGB_LICENSE = ("not stated by the source files (LRGB code is MIT); cite Dwivedi et al. 2022 (LRGB) and "
                 "Singh et al. 2016 (SATPdb)")
add_dataset(Dataset(
    id="peptides_func",
    name="Peptides-func (LRGB)",
    category="biology",
    families=("graph_cls",),
    description=(
        "15,535 peptides from SATPdb as molecular graphs (atoms, bonds; 9 integer atom features). "
        "Multi-label target: 10 peptide functions (antibacterial, antiviral, ...), stored float32 [G, 10]. "
        "The canonical LRGB train/val/test sets are kept as `split`."
    ),
    license=_LRGB_LICENSE,
    citation="Dwivedi et al. 2022, Long Range Graph Benchmark; Singh et al. 2016 (SATPdb)",
    processor=pyg_datasets.peptides_func,
    sources=(Source("zip", "https://www.dropbox.com/s/ycsq37q8sxs1ou8/peptidesfunc.zip?dl=1",
                    "lrgb-peptides", _raw(_LRGB)),),
))
add_dataset(Dataset(
    id="peptides_struct",
    name="Peptides-struct (LRGB)",
    category="biology",
    families=("graph_reg",),
    description=(
        "The Peptides molecular graphs of LRGB with 11 normalised 3-D structural properties "
        "(inertia, lengths, sphericity, ...) as regression targets, float32 [G, 11]; canonical "
        "train/val/test kept as `split`."
    ),
    license=_LRGB_LICENSE,
    citation="Dwivedi et al. 2022, Long Range Graph Benchmark; Singh et al. 2016 (SATPdb)",
    processor=pyg_datasets.peptides_struct,
    sources=(Source("zip", "https://www.dropbox.com/s/zgv4z8fcpmknhs8/peptidesstruct.zip?dl=1",
                    "lrgb-peptides", _raw(_LRGB)),),
))

_OGBG_FILES = ("RELEASE_v1.txt", "raw/edge.csv.gz", "raw/edge-feat.csv.gz", "raw/node-feat.csv.gz",
               "raw/num-node-list.csv.gz", "raw/num-edge-list.csv.gz", "raw/graph-label.csv.gz",
               "split/scaffold/train.csv.gz", "split/scaffold/valid.csv.gz", "split/scaffold/test.csv.gz")
add_dataset(Dataset(
    id="ogbg_molhiv",
    name="ogbg-molhiv",
    category="biology",
    families=("graph_cls",),
    description=(
        "41,127 molecules (MoleculeNet HIV): atoms and bonds with OGB's 9 atom features; label: inhibits "
        "HIV replication or not. Scaffold split kept as `split`. Needs the optional `ogb` package."
    ),
    license=_OGB_LICENSE_MOL,
    citation=f"{_OGB_CITE}; Wu et al. 2018 (MoleculeNet)",
    processor=pyg_datasets.ogbg_molhiv,
    sources=(Source("zip", "http://snap.stanford.edu/ogb/data/graphproppred/csv_mol_download/hiv.zip", "ogb",
                    _ogb(_OGBG_FILES)),),
))
add_dataset(Dataset(
    id="ogbg_molpcba",
    name="ogbg-molpcba",
    category="biology",
    families=("graph_cls",),
    description=(
        "437,929 molecules (MoleculeNet PCBA) with 128 bioassay outcomes; multi-label float32 [G, 128] "
        "with NaN for untested (molecule, assay) pairs. Scaffold split kept as `split`. Needs `ogb`."
    ),
    license=_OGB_LICENSE_MOL,
    citation=f"{_OGB_CITE}; Wu et al. 2018 (MoleculeNet)",
    processor=pyg_datasets.ogbg_molpcba,
    sources=(Source("zip", "http://snap.stanford.edu/ogb/data/graphproppred/csv_mol_download/pcba.zip", "ogb",
                    _ogb(_OGBG_FILES)),),
))

_PPI_FILES = tuple(f"{s}_{f}" for s in ("train", "valid", "test")
                   for f in ("feats.npy", "graph_id.npy", "graph.json", "labels.npy"))
add_dataset(Dataset(
    id="ppi",
    name="PPI (protein-protein interaction, 24 tissues)",
    category="biology",
    families=("link_pred",),
    description=(
        "Protein-protein interaction graphs of 24 human tissues (GraphSAGE preprocessing, as in PyG's PPI). "
        "An edge means two proteins physically interact in that tissue. All 24 graphs (PyG's train, val, "
        "test parts in that order) are joined as disjoint components of one graph with consecutive node "
        "ids; node features are the 50 gene-set features (the 121 GO labels are not stored)."
    ),
    license="not stated by the source; cite Zitnik & Leskovec 2017 and Hamilton et al. 2017",
    citation="Zitnik & Leskovec 2017, Predicting multicellular function through multi-layer tissue networks; "
             "Hamilton, Ying, Leskovec 2017 (GraphSAGE)",
    processor=pyg_datasets.ppi,
    sources=(Source("zip", "https://data.dgl.ai/dataset/ppi.zip", "ppi", _raw(_PPI_FILES)),),
))

# ------------------------------------------------------------------ social

_CITESEER_SHA = {
    "x": "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6",
    "tx": "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21",
    "allx": "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668",
    "y": "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924",
    "ty": "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce",
    "ally": "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95",
    "graph": "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7",
    "test.index": "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4",
}
# allx is not in the mirror. Its sha256 comes from a Git LFS pointer (D61-IA/FisherGCN @ 140cb297, whose
# pointers for the other seven files match the mirror's bytes); its git blob SHA-1 in kimiyoung/planetoid's
# tree (the manifest's) is checked too, so a changed allx is refused before it is unpickled
_PUBMED_ALLX_SHA = "508e538e2abdccdd54c4d3e9f49d638b4af7107d85845f66ddea5a5152658b7e"
_PUBMED_ALLX_GIT_BLOB = "3b86bccf08111c37c632a9dd8ab63db25ea76361"
_PUBMED_SHA = {
    "x": "fbe9cb5c47200d1b7769a26e579be3b7130b556831f9d850e77c4c74f2599b33",
    "tx": "4eb5f5d0f30f26497eb0ac6ac9719d09c67e284f1ed0385c93f3ef27a671da3d",
    "y": "e6c807633307a07ed659249006536a147c7999c797f11a2560752990181b41b3",
    "ty": "ee2e0d4819d9fbcc403689c3bf2e49face401b605932f093bc58ab6461130fdd",
    "allx": _PUBMED_ALLX_SHA,
    "ally": "0c37bbe3b5014ec365e9d393cf4791925e5ed94fb194305d74f064a8d7b50f0e",
    "graph": "5b89f0036ca22909471f1e6558eb42fa06e0c730a577bde5b058b40638f81dc9",
    "test.index": "b101d421688bbaecbd82e8a18f1e282378d6830f3a37666f28ebc47f844341b5",
}
add_dataset(Dataset(
    id="citeseer",
    name="CiteSeer",
    category="social",
    families=("node_cls", "link_pred"),
    description=(
        "Citation network of 3,327 papers, 6 classes, 3,703-d binary bag-of-words, Planetoid split "
        "(120/500/1000). For link prediction an edge means one paper cites the other (undirected)."
    ),
    license="MIT (kimiyoung/planetoid)",
    citation="Giles et al. 1998; Sen et al. 2008; Yang, Cohen, Salakhutdinov 2016 (Planetoid split)",
    processor=loaders.planetoid,
    sources=(Source("files", PLANETOID_URL, "planetoid", planetoid_files("citeseer", _CITESEER_SHA)),),
    mirror="citeseer",
))
add_dataset(Dataset(
    id="pubmed",
    name="PubMed",
    category="social",
    families=("node_cls", "link_pred"),
    description=(
        "Citation network of 19,717 diabetes papers from PubMed, 3 classes, 500-d TF-IDF, Planetoid "
        "split (60/500/1000). For link prediction an edge means one paper cites the other (undirected). "
        "The shared mirror lacks ind.pubmed.allx, so with it the dataset is reported unavailable."
    ),
    license="MIT (kimiyoung/planetoid)",
    citation="Namata et al. 2012; Yang, Cohen, Salakhutdinov 2016 (Planetoid split)",
    processor=loaders.planetoid,
    sources=(Source("files", PLANETOID_URL, "planetoid", tuple(
        dataclasses.replace(f, git_blob=_PUBMED_ALLX_GIT_BLOB) if f.name == "ind.pubmed.allx" else f
        for f in planetoid_files("pubmed", _PUBMED_SHA))),),
    mirror="pubmed",
))
add_dataset(Dataset(
    id="wikics",
    name="WikiCS",
    category="social",
    families=("node_cls",),
    description=(
        "11,701 Wikipedia computer-science articles linked by hyperlinks (symmetrised), 10 branch classes, "
        "300-d GloVe features. The 20 canonical train/val masks are stored [N, 20]; the single test mask "
        "is repeated per column."
    ),
    license="not stated in the raw file; repository pmernyei/wiki-cs-dataset (article text from Wikipedia, "
            "CC BY-SA); cite Mernyei & Cangea 2020",
    citation="Mernyei & Cangea 2020, Wiki-CS: A Wikipedia-Based Benchmark for Graph Neural Networks",
    processor=pyg_datasets.wikics,
    sources=(Source("files", "https://github.com/pmernyei/wiki-cs-dataset/raw/master/dataset/{file}", "wikics",
                    _raw(("data.json",))),),
))

_HETERO = {
    "roman_empire": ("Roman-empire", "22,662 words of the English Wikipedia article on the Roman Empire; edges "
                     "join words that follow each other or are linked in the dependency tree; label: one of 18 "
                     "syntactic roles; features: fastText embeddings.", None),
    "amazon_ratings": ("Amazon-ratings", "24,492 Amazon products; edges join products frequently bought together; "
                       "label: average rating bucket (5 classes); features: fastText embeddings of descriptions.",
                       None),
    "minesweeper": ("Minesweeper", "A 100x100 grid, 20% of cells are mines; edges join neighbouring cells; label: "
                    "mine or not; features: one-hot count of neighbouring mines (unknown for 50% of cells).",
                    "e664c8dacf1e8ac466c2c09ed4b237bd2c5541f47a6eae9c6092cb87f16412b3"),
    "tolokers": ("Tolokers", "11,758 workers of the Toloka crowdsourcing platform; edges join workers who worked "
                 "on the same task; label: banned or not; features: profile and performance statistics.",
                 "dacf3ac94cec53d03cd2adb5255c08b33dee1656c33ca8164a464bd9450a1667"),
    "questions": ("Questions", "48,921 users of the Yandex Q question-answering site; edges join users who "
                  "answered each other's questions; label: still active at the end; features: fastText "
                  "embeddings of the users' descriptions.", None),
}
#: the metric Platonov et al. 2023 score each dataset by (their evaluation protocol and result tables): ROC-AUC for the three
#: binary ones, whose classes are imbalanced (minesweeper 20 % mines, tolokers 22 % banned, questions 3 %
#: active), accuracy for the two multi-class ones
_HETERO_METRIC = {"roman_empire": "accuracy", "amazon_ratings": "accuracy", "minesweeper": "roc_auc",
                  "tolokers": "roc_auc", "questions": "roc_auc"}
_HETERO_METRIC_SOURCE = ("Platonov et al. 2023 (evaluation protocol, result tables): accuracy for roman-empire "
                         "and amazon-ratings, ROC-AUC for the binary minesweeper, tolokers and questions")
for _id, (_name, _what, _sha) in _HETERO.items():
    add_dataset(Dataset(
        id=_id,
        name=_name,
        category="social",
        families=("node_cls",),
        description=f"{_what} Heterophilous benchmark graph (undirected); its 10 canonical splits are stored [N, 10].",
        license="MIT (yandex-research/heterophilous-graphs LICENCE.txt)",
        citation="Platonov et al. 2023, A critical look at the evaluation of GNNs under heterophily",
        processor=pyg_datasets.heterophilous,
        sources=(Source("files", _HETERO_URL, "heterophilous-npz",
                        (RawFile(f"{_id}.npz", f"raw/{_id}.npz", _sha),)),),
        mirror=_id if _sha else None,
        metric=_HETERO_METRIC[_id],
        metric_source=_HETERO_METRIC_SOURCE,
    ))

add_dataset(Dataset(
    id="ogbn_arxiv",
    name="ogbn-arxiv",
    category="social",
    families=("node_cls",),
    description=(
        "169,343 arXiv CS papers (MAG), citations symmetrised, 128-d averaged word embeddings, 40 subject "
        "areas; OGB's time split (train <= 2017, val 2018, test >= 2019) as masks. Needs `ogb`."
    ),
    license="ODC-BY (OGB, Microsoft Academic Graph)",
    citation=f"{_OGB_CITE}; Wang et al. 2020 (Microsoft Academic Graph)",
    processor=pyg_datasets.ogbn_arxiv,
    sources=(Source("zip", "http://snap.stanford.edu/ogb/data/nodeproppred/arxiv.zip", "ogb", _ogb((
        "RELEASE_v1.txt", "raw/edge.csv.gz", "raw/node-feat.csv.gz", "raw/node-label.csv.gz",
        "raw/node_year.csv.gz", "raw/num-node-list.csv.gz", "raw/num-edge-list.csv.gz",
        "split/time/train.csv.gz", "split/time/valid.csv.gz", "split/time/test.csv.gz"))),),
))

add_dataset(Dataset(
    id="movielens_100k",
    name="MovieLens-100k",
    category="social",
    families=("link_pred",),
    description=(
        "100,000 ratings of 1,682 movies by 943 users as one bipartite graph: nodes 0..942 are users "
        "(u.user order, userId 1..943), nodes 943..2624 are movies (u.item order, movieId 1..1682). An edge "
        "means the user rated the movie (any rating; all of u1.base + u1.test = u.data). Features: user "
        "block (age, gender, occupation) then movie block (18 genre flags; PyG leaves out 'unknown'), "
        "zero in the other block."
    ),
    license="GroupLens research license: free for research, no redistribution or commercial use without "
            "permission; cite Harper & Konstan 2015",
    citation="F. M. Harper and J. A. Konstan, The MovieLens Datasets: History and Context, 2015",
    processor=pyg_datasets.movielens_100k,
    sources=(Source("zip", "https://files.grouplens.org/datasets/movielens/ml-100k.zip", "movielens",
                    _raw(("u.item", "u.user", "u1.base", "u1.test"))),),
))
add_dataset(Dataset(
    id="ogbl_collab",
    name="ogbl-collab",
    category="social",
    families=("link_pred",),
    description=(
        "235,868 authors (MAG) with 128-d features; an edge means two authors co-authored a paper (years "
        "and repeats collapsed; OGB's train/valid/test positives joined, the benchmark draws its own edge "
        "split). Needs `ogb`."
    ),
    license="ODC-BY (OGB, Microsoft Academic Graph)",
    citation=f"{_OGB_CITE}; Wang et al. 2020 (Microsoft Academic Graph)",
    processor=pyg_datasets.ogbl_collab,
    sources=(Source("zip", "http://snap.stanford.edu/ogb/data/linkproppred/collab.zip", "ogb", _ogb((
        "RELEASE_v1.txt", "raw/edge.csv.gz", "raw/edge_weight.csv.gz", "raw/edge_year.csv.gz",
        "raw/node-feat.csv.gz", "raw/num-node-list.csv.gz", "raw/num-edge-list.csv.gz",
        "split/time/train.pt", "split/time/valid.pt", "split/time/test.pt"))),),
))

# --------------------------------------------------------------- knowledge

_FB_SHA = {
    "entities.dict": "55666c4fb9c2990ef809e41d3a0023503b1f927fd00a1c947f21a805608f50ac",
    "relations.dict": "e98ebcc621a217ca80d44992cdf0ef5f0eb355ff9aff0ba1a3e939f6ca8fb095",
    "train.txt": "6e4c2782169af21e9743f3b1d200886f5d595bf6bc504ec1351720949c5cdfae",
    "valid.txt": "cf6309010852f6a8d47a45df830a426415d1ee6f7a3970a8376ff1fb81db4a5c",
    "test.txt": "5711cf41623ceb4eacc50eb6108a3ca6565c7492e3caaf82a3e355cc660d1574",
}
add_dataset(Dataset(
    id="fb15k_237",
    name="FB15k-237",
    category="knowledge",
    families=("link_pred",),
    description=(
        "Freebase subset without inverse-relation leakage: 14,541 entities, 237 relations, canonical "
        "train/valid/test triples (272,115 / 17,535 / 20,466). An edge (h, r, t) is a Freebase fact. "
        "Ids follow entities.dict/relations.dict; num_relations = 237 (PyG's 474 adds inverses)."
    ),
    license="not stated by the source README; triples derive from Freebase (data dumps under CC BY 2.5); "
            "cite Toutanova & Chen 2015",
    citation="Toutanova & Chen 2015, Observed versus latent features for knowledge base and text inference",
    processor=pyg_datasets.fb15k_237,
    sources=(Source("files", "https://raw.githubusercontent.com/MichSchli/RelationPrediction/master/data/"
                    "FB-Toutanova/{file}", "fb15k-237-dict", _raw(_FB_SHA, _FB_SHA)),),
    mirror="fb15k_237",
))
_WN_SHA = {
    "train.txt": "038612e783c215ee5f3ca9fbfca27b8d0739be1028fe4ee7c174aecf0b83d5df",
    "valid.txt": "453ce7202afa58094a04d2b1560ee2b02660f1c260b32ce6651c8ccedd1028ab",
    "test.txt": "0383bceaaa1096cf3c03ec021ed0048068e2355dbfc0239b292cefdac821cec5",
}
add_dataset(Dataset(
    id="wordnet18rr",
    name="WordNet18-RR",
    category="knowledge",
    families=("link_pred",),
    description=(
        "WordNet subset without inverse relations: 40,943 synsets, 11 relations (hypernym, "
        "derivationally related form, ...), canonical train/valid/test triples (86,835 / 3,034 / 3,134). "
        "An edge (h, r, t) is a lexical relation between two synsets."
    ),
    license="WordNet 3.0 license (Princeton; permissive, attribution); repository MIT (villmow)",
    citation="Dettmers et al. 2018, Convolutional 2D Knowledge Graph Embeddings; Miller 1995 (WordNet)",
    processor=pyg_datasets.wordnet18rr,
    sources=(Source("files", "https://raw.githubusercontent.com/villmow/datasets_knowledge_embedding/master/"
                    "WN18RR/original/{file}", "wn18rr-txt", _raw(_WN_SHA, _WN_SHA)),),
    mirror="wordnet18rr",
))

# ------------------------------------------------------------------- tasks

#: epoch budgets at which the validation ROC-AUC of GCN and GraphSAGE (the default width 64, Adam lr 0.01,
#: full batch, split 0) has stopped rising (report/convergence.py: the last 10 % of the epochs gain under
#: 0.1 %), measured on a 2-core CPU (issue 52). minesweeper: GraphSAGE's validation AUC 0.875 at 50 epochs,
#: 0.890 at 100, 0.893 at 200, 0.894 at 400; GCN flat at 0.723 from 100. tolokers: GCN 0.745 at 100, 0.755 at
#: 200 (still rising), 0.760 at 300, 0.761 at 400; GraphSAGE 0.807, 0.822, 0.823, 0.824 (400 epochs on tolokers'
#: 1.04 M directed edges: 1,847 s for GCN, 299 s for GraphSAGE on the loaded shared machine).
_HETERO_EPOCHS = {"minesweeper": 200, "tolokers": 300}

_TASKS = (
    # biology
    ("proteins", "proteins", "graph_cls", 60, "random_graph_80_10_10",
     "PROTEINS enzyme/non-enzyme classification; graphs shuffled per seed and cut 80/10/10."),
    ("enzymes", "enzymes", "graph_cls", 100, "random_graph_80_10_10",
     "ENZYMES 6-class EC classification; graphs shuffled per seed and cut 80/10/10."),
    ("peptides_func", "peptides_func", "graph_cls", 60, "dataset_split",
     "Peptides-func multi-label function prediction on the canonical LRGB split."),
    ("peptides_struct", "peptides_struct", "graph_reg", 60, "dataset_split",
     "Peptides-struct 11-target structure regression on the canonical LRGB split."),
    ("ogbg_molhiv", "ogbg_molhiv", "graph_cls", 40, "dataset_split",
     "ogbg-molhiv HIV activity classification on the OGB scaffold split."),
    ("ogbg_molpcba", "ogbg_molpcba", "graph_cls", 40, "dataset_split",
     "ogbg-molpcba 128-assay multi-label classification (NaN = untested) on the OGB scaffold split."),
    ("ppi", "ppi", "link_pred", 60, "random_edge_80_10_10",
     "Protein-interaction link prediction on the union of the 24 PPI tissue graphs."),
    # social, node classification
    ("citeseer", "citeseer", "node_cls", 100, "dataset_masks",
     "CiteSeer node classification on the public Planetoid split (120/500/1000)."),
    ("pubmed", "pubmed", "node_cls", 100, "dataset_masks",
     "PubMed node classification on the public Planetoid split (60/500/1000)."),
    ("wikics", "wikics", "node_cls", 100, "dataset_masks",
     "WikiCS node classification; seed s uses canonical split s % 20."),
    *((hid, hid, "node_cls", _HETERO_EPOCHS.get(hid, 100), "dataset_masks",
       f"{_HETERO[hid][0]} node classification; seed s uses canonical split s % 10.") for hid in _HETERO),
    ("ogbn_arxiv", "ogbn_arxiv", "node_cls", 200, "dataset_masks",
     "ogbn-arxiv subject-area classification on the OGB time split."),
    # social, link prediction
    ("cora_link_pred", "cora", "link_pred", 100, "random_edge_80_10_10",
     "Cora citation link prediction; held-out 80/10/10 edge split per seed."),
    ("citeseer_link_pred", "citeseer", "link_pred", 100, "random_edge_80_10_10",
     "CiteSeer citation link prediction; held-out 80/10/10 edge split per seed."),
    ("pubmed_link_pred", "pubmed", "link_pred", 100, "random_edge_80_10_10",
     "PubMed citation link prediction; held-out 80/10/10 edge split per seed."),
    ("movielens_100k", "movielens_100k", "link_pred", 100, "random_edge_80_10_10",
     "MovieLens-100k user-movie rating prediction (which user rated which movie)."),
    ("ogbl_collab", "ogbl_collab", "link_pred", 60, "random_edge_80_10_10",
     "ogbl-collab co-authorship link prediction; held-out 80/10/10 edge split per seed."),
)
for _t in _TASKS:
    add_task(TaskSpec(*_t))

add_task(TaskSpec("fb15k_237", "fb15k_237", "link_pred", 20, "relational_canonical",
                  "FB15k-237 relational link prediction (DistMult head) on the canonical triples.",
                  relational=True))
add_task(TaskSpec("wordnet18rr", "wordnet18rr", "link_pred", 40, "relational_canonical",
                  "WN18RR relational link prediction (DistMult head) on the canonical triples.",
                  relational=True))
