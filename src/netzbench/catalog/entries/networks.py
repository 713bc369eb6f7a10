"""Network-science datasets for link prediction (Netzschleuder, KONECT, SNAP, Newman, ...).

Every network here is processed by :mod:`netzbench.catalog.readers.networks`
into a simple undirected graph (weights, timestamps, layers, repeated
records and self-loops dropped; nodes without any edge dropped; nodes
numbered by increasing id in the file; no ``x``, so training uses structural
features). See that module for why.

Sources are listed in order of preference: the Netzschleuder ``<net>.csv.zip``
first where Netzschleuder hosts the network, then other canonical releases in
formats the readers understand. Files held by the shared mirror carry their
``mirror_path`` and sha256 (from the mirror's manifest.json); where the only
download of those exact bytes is a third-party GitHub copy, that copy is
listed, pinned to the commit the mirror took it from. A Netzschleuder zip can
also be placed in a mirror: unzip it into ``<mirror>/<dataset>/netzschleuder/``.

Netzschleuder names marked UNVERIFIED below could not be checked offline (in
particular the sub-network of multi-network entries); a wrong name only makes
that source fail with a clear "could not be obtained" message.
"""

from __future__ import annotations

from ..readers import networks
from ..table import TaskSpec, RawFile, Source, Dataset, add_dataset, add_task

_SPLIT = "random_edge_80_10_10"


def _netz(net: str, sub: str | None = None) -> Source:
    """The canonical Netzschleuder download ``<net>.csv.zip`` (or ``<sub>.csv.zip`` of a multi-network entry)."""
    return Source(
        "zip",
        f"https://networks.skewed.de/net/{net}/files/{sub or net}.csv.zip",
        "netzschleuder-csv",
        (RawFile("edges.csv", "netzschleuder/edges.csv"), RawFile("nodes.csv", "netzschleuder/nodes.csv")),
    )


def _konect(name: str, out: str | None = None, mirror_path: str | None = None, sha: str | None = None) -> Source:
    """A KONECT TSV tarball; ``out.<name>`` is the edge file."""
    return Source("tar", f"http://konect.cc/files/download.tsv.{name}.tar.bz2", "konect",
                  (RawFile(out or f"out.{name}", mirror_path, sha),))


def _github(repo: str, commit: str, path: str, fmt: str, name: str, mirror_path: str, sha: str) -> Source:
    """One file at a pinned commit of a GitHub repository (the exact bytes the mirror holds)."""
    return Source("files", f"https://raw.githubusercontent.com/{repo}/{commit}/{path}", fmt,
                  (RawFile(name, mirror_path, sha),))


def _snap(file: str) -> Source:
    return Source("files", f"https://snap.stanford.edu/data/{file}", "edgelist", (RawFile(file),))


def _add(id: str, name: str, category: str, description: str, license: str, citation: str,
         sources: tuple[Source, ...], epochs: int, task: str, *, mirror: str | None = None,
         directed: bool = False) -> None:
    add_dataset(Dataset(
        id=id, name=name, category=category, families=("link_pred",), description=description,
        license=license, citation=citation, processor=networks.link_pred_directed if directed else networks.link_pred,
        sources=sources, mirror=mirror, in_paper=True,
    ))
    add_task(TaskSpec(id, id, "link_pred", epochs, _SPLIT, task))


_KONECT_CITE = "J. Kunegis, KONECT - The Koblenz Network Collection, WWW 2013 Companion"
_NETZ_CITE = "T. P. Peixoto, The Netzschleuder network catalogue and repository (2020)"
_SOCIOPATTERNS_LICENSE = "not stated in the released files (SocioPatterns collaboration data); cite the paper below"

# --- pinned third-party copies held by the mirror (repository, commit) --------------------------
_NEWMAN_COPY = ("alfonsomelendez/2022-1", "9e33b8f4594f8e97843d773593d1399dd2fe9a21")
_DOMIRANK = ("klimkomx/DominatingDomirank", "c95b6b360ed6034e9eb9647068017c513a71acc9")
_FACE2FACE = ("gesiscss/face2face", "23ca5dfcf28f349fa45ff7faef6fa09c9cb0d259")
_COMPNET = ("CompNet/MultiplexCentrality", "9069d5eee92f64accfb63b87bf2e1ccb962abd37")
_ALAAMEE = ("stivalaa/ALAAMEE", "0beaa65bae85a578f162fd5640c6313ff41170c3")

# =================================================================================== biology

_CELEGANS_SHA = "4b91249d384e47bdfa4d99197ffe4816b47e5ed94a234e60549849bb368238fd"
_add(
    "celegans", "C. elegans neural network", "biology",
    "Neural network of the nematode C. elegans as compiled by Watts & Strogatz: 297 neurons, 2,359 "
    "directed, weighted synapse/gap-junction records (2,148 undirected neuron pairs). An edge means "
    "the two neurons are connected by at least one synapse or gap junction (direction and weight dropped).",
    "not stated by the source; cite White et al. 1986 and Watts & Strogatz 1998",
    "J. G. White et al., The structure of the nervous system of the nematode C. elegans, Phil. Trans. R. Soc. "
    "London 314 (1986); D. J. Watts & S. H. Strogatz, Nature 393, 440 (1998)",
    (
        _netz("celegansneural"),
        Source("zip", "http://www-personal.umich.edu/~mejn/netdata/celegansneural.zip", "gml",
               (RawFile("celegansneural.gml", "celegansneural.gml", _CELEGANS_SHA),)),
        _github(*_NEWMAN_COPY, "datasets/celegansneural.gml", "gml", "celegansneural.gml",
                "celegansneural.gml", _CELEGANS_SHA),
    ),
    100, "Link prediction on the C. elegans neural network (held-out neuron pairs).",
    mirror="celegans", directed=True,
)
_add(
    "budapest_connectome", "Budapest Reference Connectome", "biology",
    "Consensus human structural connectome from diffusion-MRI tractography of Human Connectome Project "
    "subjects (Budapest Reference Connectome Server): nodes are cortical and subcortical regions of "
    "interest, an edge means a fibre tract connects the two regions in the consensus graph.",
    "not stated by the source; cite Szalkai et al. 2015 (braingraph.org) and Netzschleuder",
    "B. Szalkai, C. Kerepesi, B. Varga, V. Grolmusz, The Budapest Reference Connectome Server v2.0, "
    f"Neuroscience Letters 595, 60 (2015); {_NETZ_CITE}",
    (_netz("budapest_connectome"),),  # UNVERIFIED: the entry may be split into sub-networks
    80, "Link prediction on the Budapest reference connectome (held-out region pairs).",
)
_add(
    "hospital_contacts", "Hospital ward contacts (SocioPatterns, Lyon 2010)", "biology",
    "Face-to-face proximity of 75 patients, nurses, doctors and administrative staff of a hospital ward "
    "in Lyon over 4 days (Dec 2010), recorded by wearable RFID sensors in 20-s windows (32,424 records). "
    "An edge means the two people were in contact at least once.",
    _SOCIOPATTERNS_LICENSE,
    "P. Vanhems et al., Estimating potential infection transmission routes in hospital wards using "
    "wearable proximity sensors, PLoS ONE 8, e73970 (2013)",
    (
        _netz("sp_hospital"),
        _github(*_FACE2FACE, "face2face/data/hospital/tij_hospital.dat", "sociopatterns-tij",
                "tij_hospital.dat", "tij_hospital.dat",
                "f246f4db411cde4f88443e0657fb7b9fe01f4868bb717930ca3eb686bc72a13e"),
    ),
    100, "Link prediction on the hospital-ward contact graph (held-out contact pairs).",
)
_add(
    "high_school_contacts", "High-school contacts (SocioPatterns, Marseille 2013)", "biology",
    "Face-to-face proximity of 327 students of nine classes of the Lycee Thiers, Marseille, over 5 days "
    "(Dec 2013), recorded by wearable sensors in 20-s windows (188,508 records). An edge means the two "
    "students were in contact at least once.",
    _SOCIOPATTERNS_LICENSE,
    "R. Mastrandrea, J. Fournet, A. Barrat, Contact patterns in a high school: a comparison between data "
    "collected using wearable sensors, contact diaries and friendship surveys, PLoS ONE 10, e0136497 (2015)",
    (
        _netz("sp_high_school", "proximity"),  # UNVERIFIED sub-network name
        _github(*_FACE2FACE, "face2face/data/thiers13/tij_thiers13.dat", "sociopatterns-tij",
                "tij_thiers13.dat", "tij_thiers13.dat",
                "f11b550fb2d2ac5bc1e7073bfd1bbc110285fb860703fca5f16e6ee815f136c5"),
    ),
    100, "Link prediction on the high-school contact graph (held-out contact pairs).",
)

# ==================================================================================== social

_add(
    "facebook_friends", "Facebook friends (B. F. Maier, 2014)", "social",
    "Anonymised Facebook ego network of B. F. Maier with the ego removed (362 profiles, 1,988 friendships; "
    "14 profiles linked only to the ego are isolated and dropped). An edge means the two profiles are "
    "Facebook friends.",
    "MIT (benmaier/BFMaierFBnetwork LICENSE)",
    "B. F. Maier and D. Brockmann, Cover time for random walks on arbitrary complex networks, "
    "Phys. Rev. E 96, 042307 (2017)",
    (
        _netz("facebook_friends"),
        # Netzschleuder's GML export (same node numbering as the csv.zip), as copied in cran/arlclustering
        _github("cran/arlclustering", "e5e8dc81ca6c0467cf8136df674ad08875f098b0",
                "inst/extdata/Facebook_fiends.gml", "gml", "Facebook_fiends.gml", "Facebook_fiends.gml",
                "39ceb7572a55b4b3c40f95238f44687b5eb68d399514555bb49291f00bd4b909"),
        # the upstream original: the same graph, numbered differently
        _github("benmaier/BFMaierFBnetwork", "d1446af55483c98d93f72015b6238200e1a30575",
                "bfmaier_anonymized_fb_network.gml", "gml", "bfmaier_anonymized_fb_network.gml",
                "bfmaier_anonymized_fb_network.gml",
                "cb94e2c6a02c4f8457730418fd4413d5abb75783f65c02b990eb1dade4a41aaa"),
    ),
    100, "Link prediction on a Facebook friendship ego network (held-out friendships).",
)
_add(
    "dblp_coauthor", "DBLP co-authorship", "social",
    "Co-authorship network of the DBLP computer-science bibliography (KONECT dblp_coauthor: about 1.3 M "
    "authors, 19 M authorship-pair records, one per joint publication). An edge means the two authors "
    "have published together at least once.",
    "not stated by the source (dblp's own data is openly licensed); cite Ley 2002 and KONECT",
    f"M. Ley, The DBLP computer science bibliography: evolution, research issues, perspectives, SPIRE 2002; "
    f"{_KONECT_CITE}",
    (_netz("dblp_coauthor"), _konect("dblp_coauthor")),  # Netzschleuder name UNVERIFIED
    40, "Link prediction on the DBLP co-authorship network (held-out co-author pairs).",
)
_add(
    "dnc_emails", "DNC emails (2016 leak)", "social",
    "Emails of the 2016 Democratic National Committee leak (KONECT dnc-temporalGraph): 39,264 timestamped "
    "sender->recipient records among 2,029 addresses, of which 1,866 exchange mail with someone else. An edge "
    "means one of the two ever emailed the other.",
    "not stated by the source (KONECT asks for a citation)",
    _KONECT_CITE + "; data extracted by R. Pickhardt from the 2016 DNC WikiLeaks email corpus",
    (
        _netz("dnc"),
        _konect("dnc-temporalGraph", mirror_path="out.dnc-temporalGraph",
                sha="d8992c2db40f4aac0f608cede4c6924d7adad95b7b51344710e9a15e73f3959e"),
        _github("Seaocn/Dyn-Backdoor", "3e66d765b649e519bc3e0db29a591da25e0b20f0",
                "data/dnc-temporalGraph/0.input/out.dnc-temporalGraph", "konect", "out.dnc-temporalGraph",
                "out.dnc-temporalGraph", "d8992c2db40f4aac0f608cede4c6924d7adad95b7b51344710e9a15e73f3959e"),
    ),
    80, "Link prediction on the DNC email network (held-out correspondent pairs).",
    directed=True,
)
add_task(TaskSpec("karate_link_pred", "karate", "link_pred", 100, _SPLIT,
                  "Link prediction on Zachary's karate club (held-out friendships)."))

# ================================================================================= knowledge

_add(
    "wordnet", "WordNet (Netzschleuder)", "knowledge",
    "Lexical network of English words from WordNet (KONECT wordnet-words: about 146 k words, 657 k "
    "relations such as synonymy, hypernymy and meronymy). An edge means WordNet relates the two words; "
    "relation types are not kept (homogeneous link prediction, unlike WordNet18-RR).",
    "WordNet 3.0 license (Princeton University; free use with attribution)",
    f"C. Fellbaum (ed.), WordNet: An Electronic Lexical Database, MIT Press 1998; {_KONECT_CITE}; {_NETZ_CITE}",
    (_netz("wordnet"), _konect("wordnet-words")),  # Netzschleuder name UNVERIFIED
    40, "Homogeneous link prediction on the WordNet word network (held-out word pairs).",
)

# ============================================================================ infrastructure

_POWER_SHA = "f9b4aba8c2b5fd60e52afe745044cd83ed73eac6689e0e094fdd6446b5a0a816"
_add(
    "power_grid", "US power grid", "infrastructure",
    "High-voltage power grid of the Western States of the US (4,941 generators, transformers and "
    "substations; 6,594 lines). An edge means a transmission line joins the two stations.",
    "not stated by the source; cite Watts & Strogatz 1998",
    "D. J. Watts & S. H. Strogatz, Collective dynamics of 'small-world' networks, Nature 393, 440 (1998)",
    (
        _netz("power"),
        Source("zip", "http://www-personal.umich.edu/~mejn/netdata/power.zip", "gml",
               (RawFile("power.gml", "power.gml", _POWER_SHA),)),
        _github(*_NEWMAN_COPY, "datasets/power.gml", "gml", "power.gml", "power.gml", _POWER_SHA),
        # Netzschleuder's GML export (identical graph and numbering)
        _github(*_DOMIRANK, "data/us_power_grid.gml", "gml", "us_power_grid.gml", "us_power_grid.gml",
                "ec153978cbe5e66a34b653a3cdb8fdef4b9c6fb89e9bd755b9ad8c38ad5be3d8"),
    ),
    80, "Link prediction on the US Western States power grid (held-out lines).",
    mirror="power_grid",
)
_add(
    "euroroad", "E-road network", "infrastructure",
    "The international E-road network, mostly in Europe (1,174 cities, 1,417 road links; KONECT "
    "subelj_euroroad). An edge means an E-road directly connects the two cities.",
    "not stated by the source; cite Subelj & Bajec 2011",
    "L. Subelj & M. Bajec, Robust network community detection using balanced propagation, "
    f"Eur. Phys. J. B 81, 353 (2011); {_NETZ_CITE}",
    (
        _netz("euroroad"),
        _konect("subelj_euroroad"),
        # Netzschleuder's GML export (UTF-8 city names), as copied in klimkomx/DominatingDomirank
        _github(*_DOMIRANK, "data/euroroad.gml", "gml", "euroroad.gml", "euroroad.gml",
                "fb504682fe533aecc0e6a3c05950afcbb70a76c033e4b161dda3bf3433ae6aed"),
    ),
    80, "Headline infrastructure task: link prediction on the E-road network (held-out road links).",
)
_add(
    "us_roads", "US roads (California road network)", "infrastructure",
    "Road network of California from SNAP (roadNet-CA: about 1.97 M intersections and endpoints, 2.77 M "
    "road segments). An edge means a road segment joins the two intersections.",
    "not stated by the source; cite Leskovec et al. 2009 (SNAP)",
    "J. Leskovec, K. Lang, A. Dasgupta, M. Mahoney, Community structure in large networks: natural cluster "
    "sizes and the absence of large well-defined clusters, Internet Mathematics 6(1) (2009)",
    (_snap("roadNet-CA.txt.gz"),),
    40, "Link prediction on the California road network (held-out road segments).",
)
_add(
    "eu_airlines", "European airline network", "infrastructure",
    "European air transportation multiplex of 37 airlines (2011): 450 airports, 3,588 airline-route "
    "records. Layers are aggregated: an edge means at least one airline flies directly between the two "
    "airports (2,953 pairs among the 417 airports with a route).",
    "GNU FDL 1.3 (per the release README)",
    "A. Cardillo et al., Emergence of network features from multiplexity, Scientific Reports 3, 1344 (2013)",
    (
        _netz("eu_airlines"),
        _github(*_COMPNET, "data/EUAir_Multiplex_Transport/Dataset/EUAirTransportation_multiplex.edges",
                "multiplex-edges", "EUAirTransportation_multiplex.edges",
                "Dataset/EUAirTransportation_multiplex.edges",
                "781bc202cdce79cf196c9ec7c5b8379de0f2bcf94a25e525860cf8e022ec67ec"),
    ),
    100, "Link prediction on the aggregated European airline network (held-out airport pairs).",
)
_add(
    "london_transport", "London transport multiplex", "infrastructure",
    "London rail transport in 2013 as a three-layer multiplex (tube, overground, DLR): 369 stations, 441 "
    "layer links. Layers are aggregated: an edge means the two stations are consecutive on some line of "
    "any layer (430 station pairs).",
    "ODbL 1.0 + DbCL 1.0 (release LICENSE files; contains TfL data)",
    "M. De Domenico, A. Sole-Ribalta, S. Gomez, A. Arenas, Navigability of interconnected networks under "
    "random failures, PNAS 111, 8351 (2014)",
    (
        _netz("london_transport"),
        _github(*_COMPNET, "data/London_Multiplex_Transport/Dataset/london_transport_multiplex.edges",
                "multiplex-edges", "london_transport_multiplex.edges",
                "Dataset/london_transport_multiplex.edges",
                "50bda06a46e30e30387a43a35aa839d3bfd9841f727f9119260ceef6eeb774ec"),
    ),
    100, "Link prediction on the aggregated London rail network (held-out station pairs).",
)
_add(
    "urban_streets", "Urban street network (London)", "infrastructure",
    "Street network of a one-square-mile sample of London from the urban street patterns collection of "
    "Cardillo et al.: nodes are street intersections, an edge means a street segment joins the two.",
    "not stated by the source; cite Cardillo et al. 2006",
    "A. Cardillo, S. Scellato, V. Latora, S. Porta, Structural properties of planar graphs of urban street "
    f"patterns, Phys. Rev. E 73, 066107 (2006); {_NETZ_CITE}",
    (_netz("urban_streets", "london"),),  # UNVERIFIED sub-network name
    100, "Link prediction on an urban street network (held-out street segments).",
)

# =================================================================================== finance

_add(
    "product_space", "Product space", "finance",
    "The product space of Hidalgo et al.: nodes are export products (SITC classification), an edge links "
    "two products that countries tend to export together with high proximity (co-export probability).",
    "not stated by the source; cite Hidalgo et al. 2007",
    "C. A. Hidalgo, B. Klinger, A.-L. Barabasi, R. Hausmann, The product space conditions the development "
    f"of nations, Science 317, 482 (2007); {_NETZ_CITE}",
    (_netz("product_space", "SITC"),),  # UNVERIFIED sub-network name
    100, "Link prediction on the product space (held-out product pairs).",
)
_add(
    "board_directors", "Norwegian boards of directors", "finance",
    "Directors of Norwegian public limited companies (one-mode projection, snapshot of 1 Aug 2011): nodes "
    "are directors, an edge means the two sat on the board of the same company.",
    "CC BY-NC 3.0 (the boardsandgender.com data page); cite Seierstad & Opsahl 2011",
    "C. Seierstad & T. Opsahl, For the few not the many? The effects of affirmative action on presence, "
    f"prominence, and social capital of women directors in Norway, Scand. J. Manag. 27, 44 (2011); {_NETZ_CITE}",
    (
        _netz("board_directors", "net1m_2011-08-01"),
        # the original boardsandgender.com edge list of 1 Aug 2011 (site offline), as saved in stivalaa/ALAAMEE:
        # `personID personID`, every edge in both directions; 1,421 directors, 3,855 edges, as Netzschleuder's
        _github(*_ALAAMEE, "examples/simple/bipartite/Seierstad_director_interlocks/data/net1m_2011-08-01.txt",
                "edgelist", "net1m_2011-08-01.txt", "net1m_2011-08-01.txt",
                "baf947cd95c3131ae9d7f4fef884a9d4d49301dc38356004ee3f22017e56585a"),
    ),
    40, "Headline finance task: link prediction on the Norwegian director network (held-out co-memberships).",
)
_add(
    "us_patents", "US patent citations", "finance",
    "Citations among US utility patents granted 1975-1999 (NBER data, SNAP cit-Patents: about 3.77 M "
    "patents, 16.5 M citations). An edge means one of the two patents cites the other.",
    "not stated by the source; cite Hall, Jaffe & Trajtenberg 2001 and Leskovec et al. 2005",
    "B. H. Hall, A. B. Jaffe, M. Trajtenberg, The NBER patent citation data file, NBER WP 8498 (2001); "
    "J. Leskovec, J. Kleinberg, C. Faloutsos, Graphs over time, KDD 2005",
    (_snap("cit-Patents.txt.gz"),),
    40, "Link prediction on the US patent citation network (held-out citing pairs).",
    directed=True,
)

# ================================================================================= computing

_add(
    "internet_as", "Internet AS graph (2006)", "computing",
    "Snapshot of the Internet at the level of autonomous systems, reconstructed from BGP tables of "
    "22 July 2006 (M. Newman): 22,963 ASes, 48,436 links. An edge means the two ASes exchange traffic "
    "directly (a BGP peering).",
    "not stated by the source; cite M. Newman's network data (2006)",
    f"M. E. J. Newman, Internet AS snapshot of 22 July 2006 (network data collection); {_NETZ_CITE}",
    (
        _netz("internet_as"),
        # Newman's original zip: a different serialisation of the same graph than the mirror's copy
        Source("zip", "http://www-personal.umich.edu/~mejn/netdata/as-22july06.zip", "gml",
               (RawFile("as-22july06.gml"),)),
        _github("happylixue/small-scale-graph-node-influence", "41fce3d16c244a6d2b0faf1bf98f46967d34ea87",
                "data/as-22july06.gml", "gml", "as-22july06.gml", "as-22july06.gml",
                "12ea1da0e8f38ec647a6caab04864e21eaf96fd810b79ef8ebb3cbc68228a95a"),
    ),
    40, "Headline computing task: link prediction on the Internet AS graph (held-out peerings).",
)
_add(
    "internet_topology", "Internet topology (AS level, Zhang et al.)", "computing",
    "AS-level Internet topology collected from BGP tables, looking-glass and routing-registry data "
    "(KONECT topology: about 34.8 k ASes, 171 k timestamped link records). An edge means a link between "
    "the two ASes was observed.",
    "not stated by the source; cite Zhang et al. 2005 and KONECT",
    f"B. Zhang, R. Liu, D. Massey, L. Zhang, Collecting the Internet AS-level topology, ACM SIGCOMM CCR "
    f"35(1), 53 (2005); {_KONECT_CITE}",
    (_konect("topology"),),
    60, "Link prediction on the AS-level Internet topology (held-out AS links).",
)
_add(
    "as_skitter", "AS-Skitter", "computing",
    "Internet topology graph from CAIDA Skitter traceroutes (2005; SNAP as-skitter: about 1.7 M hosts/ASes, "
    "11.1 M links). An edge means a traceroute observed a direct link between the two. Large: the edge "
    "list is parsed in streamed chunks.",
    "not stated by the source; cite Leskovec et al. 2005 and CAIDA",
    "J. Leskovec, J. Kleinberg, C. Faloutsos, Graphs over time: densification laws, shrinking diameters "
    "and possible explanations, KDD 2005; CAIDA Skitter project",
    (_snap("as-skitter.txt.gz"),),
    40, "Link prediction on the AS-Skitter Internet graph (held-out links).",
)
_add(
    "route_views", "Route Views AS graph (2 Jan 2000)", "computing",
    "Autonomous-systems graph from the University of Oregon Route Views BGP logs, last daily snapshot "
    "(2 Jan 2000) of SNAP as-733 (about 6.5 k ASes). An edge means the two ASes peer directly.",
    "not stated by the source; cite Leskovec et al. 2005 and the Route Views project",
    "J. Leskovec, J. Kleinberg, C. Faloutsos, Graphs over time, KDD 2005; University of Oregon Route "
    f"Views Project; {_NETZ_CITE}",
    (
        _netz("route_views", "20000102"),  # UNVERIFIED sub-network name
        Source("tar", "https://snap.stanford.edu/data/as-733.tar.gz", "edgelist", (RawFile("as20000102.txt"),)),
    ),
    80, "Link prediction on the Route Views AS graph (held-out peerings).",
)

# ================================================================================== security

_add(
    "terrorists_911", "9/11 hijackers and associates", "security",
    "Covert network of the 9/11 hijackers and their associates compiled by V. Krebs from public sources. "
    "The mirror holds the UCINET covert-networks version (61 x 61 matrix, 131 ties; the Netzschleuder "
    "version has 62 people, so the two sources are not identical). An edge means a known tie "
    "(trust/contact) between the two people.",
    "not stated by the source; cite Krebs 2002",
    f"V. E. Krebs, Mapping networks of terrorist cells, Connections 24(3), 43 (2002); {_NETZ_CITE}",
    (
        _netz("terrorists_911"),
        _github("EsosaOrumwese/Network_Intelligence_for_Counterterrorism__A_9_11_Case_Study",
                "e16f86e46d6debb6b515bff20df475f9d40da2cb", "data/9_11_HIJACKERS_ASSOCIATES.csv",
                "ucinet-csv-matrix", "9_11_HIJACKERS_ASSOCIATES.csv", "9_11_HIJACKERS_ASSOCIATES.csv",
                "0e8ab53be92ecfe67bb78214b4de151d20695b08534a2c0a485911c72c129cd2"),
    ),
    120, "Headline security task: link prediction on the 9/11 terrorist network (held-out ties).",
)
_TRAIN_SHA = "67190c5e5f642a8faf2e8bd81622668d6efb9f89221d7ab6e2b678ab24dbfa14"
_add(
    "train_terrorists", "Madrid train bombing terrorists", "security",
    "Contacts among the 64 suspects of the 11 March 2004 Madrid train bombings, reconstructed from press "
    "reports (KONECT moreno_train: 243 weighted ties). An edge means a reported contact between the two.",
    "not stated by the source (KONECT asks for a citation)",
    "B. Hayes, Connecting the dots, American Scientist 94(5), 400 (2006); J. A. Rodriguez, The March 11th "
    f"terrorist network: in its weakness lies its strength (2005); {_KONECT_CITE}",
    (
        _netz("train_terrorists"),
        _konect("moreno_train", "out.moreno_train_train", "train-data.txt", _TRAIN_SHA),
        # the KONECT edge file, renamed train-data.txt in its repository
        Source("files", "https://raw.githubusercontent.com/stevenyvette/train-bombing/"
               "e2f1713179fc8900c6cd957e04055dfdb1d6c66f/data/train-data.txt", "konect",
               (RawFile("out.moreno_train_train", "train-data.txt", _TRAIN_SHA),)),
    ),
    100, "Link prediction on the Madrid train-bombing network (held-out contacts).",
)
