"""GraphML, Pajek and GEXF as declared datasets: files as Gephi, yEd, networkx and Pajek write them.

The fixtures are written here (not in ``raw_fixtures``) with the quirks of real exports: undirected
edges listed in both directions, per-edge direction overrides, string ids, key defaults, yEd's
graphics namespaces and group nodes, Gephi's pre-1.0 GEXF namespace, Pajek's quoted names, CRLF,
comments, sections in any case, two-mode vertex counts, vertices without edges. Counts are checked
against what was written; bad and hostile files must give one ReadError naming file and line.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
import yaml

from netzbench import readers
from netzbench.catalog import custom
from netzbench.catalog.readers.declared import FORMATS
from netzbench.catalog.readers.network_bundles import LABELLED
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.config import load_config
from netzbench.errors import ParamsError

CRLF = "\r\n"
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]


def _ring(n):
    return [(i, (i + 1) % n) for i in range(n)]


# ------------------------------------------------------------------------------------------ GraphML


def write_graphml(folder, name="friends.graphml"):
    """networkx/Gephi-style GraphML: string ids, each undirected edge listed in both directions, key
    defaults, a weight key, one directed override, a repeated record, a self-loop, an isolated node,
    graph-level data and a <desc>; CRLF line ends."""
    folder.mkdir(parents=True, exist_ok=True)
    n = len(NAMES)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
             'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
             'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
             '  <key id="d0" for="node" attr.name="community" attr.type="string"><default>none</default></key>',
             '  <key id="d1" for="node" attr.name="age" attr.type="int"/>',
             '  <key id="weight" for="edge" attr.name="weight" attr.type="double"/>',
             '  <key id="d3" for="edge" attr.name="since" attr.type="int"/>',
             '  <key id="d4" for="graph" attr.name="title" attr.type="string"/>',
             '  <graph id="G" edgedefault="undirected">',
             '    <desc>friends</desc>',
             '    <data key="d4">a fixture</data>']
    for i, node in enumerate(NAMES + ["zoe"]):  # zoe: no edge
        data = f'<data key="d0">{"ab"[i % 2]}</data>' if i % 5 else ""  # every fifth node takes the default
        lines.append(f'    <node id="{node}">{data}<data key="d1">{20 + i}</data></node>')
    pairs = _ring(n)
    for s, t in pairs:  # both directions, as some exporters write an undirected graph
        for a, b in ((s, t), (t, s)):
            lines.append(f'    <edge source="{NAMES[a]}" target="{NAMES[b]}"><data key="weight">2.5</data>'
                         f'<data key="d3">2001</data></edge>')
    lines += [f'    <edge source="{NAMES[0]}" target="{NAMES[1]}"/>',  # a repeated record
              f'    <edge source="{NAMES[2]}" target="{NAMES[2]}"/>',  # a self-loop
              f'    <edge source="{NAMES[0]}" target="{NAMES[5]}" directed="true"/>',  # a directed chord
              '  </graph>', '</graphml>']
    (folder / name).write_bytes(CRLF.join(lines).encode() + CRLF.encode())
    return {"num_nodes": n, "num_edges": n + 1, "records": 2 * n + 3, "reverse_duplicates": n, "self_loops": 1,
            "duplicate_edges": 1, "isolated_nodes": 1, "declared": n + 1}


def test_graphml_counts_reverse_duplicates_beside_duplicates_and_drops_weights(tmp_path):
    want = write_graphml(tmp_path / "g")
    b = readers.read_dataset(tmp_path / "g", "link_pred")
    assert b.notes["format"] == "graphml"
    assert b.counts == {"num_nodes": want["num_nodes"], "num_edges": want["num_edges"],
                        "num_edge_records": want["records"], "num_declared_nodes": want["declared"]}
    assert b.dropped == {"self_loops": 1, "duplicate_edges": 1, "reverse_duplicates": want["reverse_duplicates"],
                         "edge_attributes": ["since", "weight"], "weights": True, "isolated_nodes": 1}
    # every undirected record is accounted: edges + self-loops + repeats + reverse records (+ the one arc)
    c, d = b.counts, b.dropped
    assert c["num_edge_records"] == c["num_edges"] + d["self_loops"] + d["duplicate_edges"] + d["reverse_duplicates"]
    assert b.notes["edge_directions"] == {"directed": 1, "undirected": want["records"] - 1}
    assert "declares" in b.notes["node_ids"]  # string ids, numbered in declaration order
    ei = b.arrays["edge_index"]
    assert {(0, 1), (0, 5), (0, 9)} <= set(map(tuple, ei.T))  # alice=0, bob=1, frank=5, judy=9


def test_graphml_node_attribute_by_name_or_key_id_with_the_key_default(tmp_path):
    write_graphml(tmp_path / "g")
    by_name = readers.read_graphml(tmp_path / "g", "node_cls", label="community")
    by_id = readers.read_dataset(tmp_path / "g", "node_cls", format="graphml", label="d0")
    assert by_name.counts == by_id.counts == {"num_nodes": 11, "num_edges": 11, "num_classes": 3}
    assert by_name.notes["label_mapping"] == {"0": "a", "1": "b", "2": "none"}
    assert by_name.arrays["y"].tolist()[:6] == [2, 1, 0, 1, 0, 2]  # alice and frank: the default
    assert np.array_equal(by_name.arrays["y"], by_id.arrays["y"])
    ages = readers.read_graphml(tmp_path / "g", "node_cls", label="age")  # attr.type int: ints, 20..30
    assert ages.counts["num_classes"] == 31 and ages.arrays["y"].tolist()[0] == 20


def test_graphml_bad_label_names_what_is_declared_and_the_node_without_a_value(tmp_path):
    write_graphml(tmp_path / "g")
    with pytest.raises(readers.ReadError, match=r"d0 \(community\), d1 \(age\)"):
        readers.read_graphml(tmp_path / "g", "node_cls", label="weight")  # an edge key is no node attribute
    text = (tmp_path / "g" / "friends.graphml").read_text()
    (tmp_path / "g" / "friends.graphml").write_text(text.replace('<data key="d1">23</data>', ""))
    with pytest.raises(readers.ReadError, match=r"friends\.graphml, line 14: .*node 'dave' without one"):
        readers.read_graphml(tmp_path / "g", "node_cls", label="age")


YED = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:java="http://www.yworks.com/xml/yfiles-common/1.0/java"
 xmlns:sys="http://www.yworks.com/xml/yfiles-common/markup/primitives/2.0" xmlns:x="http://www.yworks.com/xml/yfiles-common/markup/2.0"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:y="http://www.yworks.com/xml/graphml"
 xmlns:yed="http://www.yworks.com/xml/yed/3"
 xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://www.yworks.com/xml/schema/graphml/1.1/ygraphml.xsd">
  <!--Created by yEd 3.23-->
  <key for="port" id="d0" yfiles.type="portgraphics"/>
  <key attr.name="url" attr.type="string" for="node" id="d3"/>
  <key attr.name="description" attr.type="string" for="node" id="d5"/>
  <key for="node" id="d6" yfiles.type="nodegraphics"/>
  <key for="graphml" id="d7" yfiles.type="resources"/>
  <key for="edge" id="d10" yfiles.type="edgegraphics"/>
  <graph edgedefault="directed" id="G">
    <node id="n0">
      <data key="d5">team a</data>
      <data key="d6"><y:ShapeNode><y:Geometry height="30.0" width="30.0" x="0.0" y="0.0"/>
        <y:Fill color="#FFCC00" transparent="false"/><y:NodeLabel>node</y:NodeLabel><y:Shape type="rectangle"/>
      </y:ShapeNode></data>
    </node>
    <node id="n1" yfiles.foldertype="group">
      <data key="d5">team b</data>
      <data key="d6"><y:ProxyAutoBoundsNode><y:Realizers active="0"><y:GroupNode>
        <y:NodeLabel>group</y:NodeLabel></y:GroupNode></y:Realizers></y:ProxyAutoBoundsNode></data>
      <graph edgedefault="directed" id="n1:">
        <node id="n1::n0"><data key="d5">team b</data><port name="p0"/></node>
        <node id="n1::n1"><data key="d5">team b</data></node>
        <edge id="n1::e0" source="n1::n0" target="n1::n1" sourceport="p0"><data key="d10"><y:PolyLineEdge>
          <y:Arrows source="none" target="standard"/></y:PolyLineEdge></data></edge>
      </graph>
    </node>
    <node id="n2"><data key="d5">team a</data></node>
    <edge id="e0" source="n0" target="n1::n0"><data key="d10"><y:PolyLineEdge><y:LineStyle type="line"/>
      </y:PolyLineEdge></data></edge>
    <edge id="e1" source="n0" target="n2"/>
    <edge id="e2" source="n2" target="n0"/>
  </graph>
  <data key="d7"><y:Resources/></data>
</graphml>
"""


def test_yed_graphml_graphics_skipped_and_a_group_node_flattened(tmp_path):
    (tmp_path / "team.graphml").write_text(YED)
    b = readers.read_dataset(tmp_path / "team.graphml", "link_pred")
    assert b.counts == {"num_nodes": 4, "num_edges": 3, "num_edge_records": 4, "num_directed_edges": 4,
                        "num_declared_nodes": 5}
    assert b.notes["nested_graphs"] == 1  # flattened: n1's nodes are nodes, n1 stays one (isolated here)
    assert b.dropped["edge_attributes"] == ["edgegraphics"] and b.dropped["isolated_nodes"] == 1
    assert b.dropped["reverse_duplicates"] == 1  # n2 -> n0 after n0 -> n2: two arcs, one undirected edge
    node = readers.read_graphml(tmp_path / "team.graphml", "node_cls", label="description")
    assert node.counts == {"num_nodes": 5, "num_edges": 3, "num_classes": 2}
    with pytest.raises(readers.ReadError, match=r"line 15: .*node 'n0': XML elements"):
        readers.read_graphml(tmp_path / "team.graphml", "node_cls", label="nodegraphics")


# ------------------------------------------------------------------------------------------ GEXF


def write_gexf_12(folder):
    """Gephi 0.9 export (GEXF 1.2draft): defaultedgetype directed, weight="1.0" on every edge, one
    undirected and one mutual edge, integer ids, viz elements, a Modularity Class attribute."""
    folder.mkdir(parents=True, exist_ok=True)
    n = 12
    nodes = "".join(f'      <node id="{i}" label="Person {i}">\n'
                    f'        <attvalues><attvalue for="modularity_class" value="{i % 3}"></attvalue></attvalues>\n'
                    f'        <viz:size value="10.0"></viz:size><viz:position x="1.5" y="-2.0"></viz:position>\n'
                    f'        <viz:color r="20" g="30" b="40"></viz:color>\n      </node>\n' for i in range(n))
    edges = "".join(f'      <edge id="{k}" source="{s}" target="{t}" weight="1.0"></edge>\n'
                    for k, (s, t) in enumerate(_ring(n)))
    edges += (f'      <edge id="{n}" source="0" target="6" type="undirected" weight="1.0"></edge>\n'
              f'      <edge id="{n + 1}" source="3" target="9" type="mutual" weight="1.0"></edge>\n'
              f'      <edge id="{n + 2}" source="1" target="0" weight="1.0"></edge>\n')  # the reverse arc
    (folder / "gephi.gexf").write_text(f"""<?xml version="1.0" encoding="UTF-8"?>
<gexf xmlns="http://www.gexf.net/1.2draft" xmlns:viz="http://www.gexf.net/1.1draft/viz"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
 xsi:schemaLocation="http://www.gexf.net/1.2draft http://www.gexf.net/1.2draft/gexf.xsd" version="1.2">
  <meta lastmodifieddate="2024-05-01"><creator>Gephi 0.10.1</creator><description></description></meta>
  <graph defaultedgetype="directed" mode="static">
    <attributes class="node" mode="static">
      <attribute id="modularity_class" title="Modularity Class" type="integer"></attribute>
    </attributes>
    <nodes>
{nodes}    </nodes>
    <edges>
{edges}    </edges>
  </graph>
</gexf>
""")
    return {"num_nodes": n, "num_edges": n + 2, "records": n + 3}


def test_gexf_12_per_edge_type_overrides_and_unit_weights(tmp_path):
    want = write_gexf_12(tmp_path / "x")
    b = readers.read_dataset(tmp_path / "x", "link_pred")
    assert b.notes["format"] == "gexf" and "node_ids" not in b.notes  # integer ids kept
    assert b.counts["num_edges"] == want["num_edges"] and b.counts["num_edge_records"] == want["records"]
    assert b.notes["edge_directions"] == {"directed": want["records"] - 2, "undirected": 2}
    assert "weights" not in b.dropped  # weight="1.0" on every edge: no weights
    assert b.dropped["edge_attributes"] == ["weight"] and b.dropped["reverse_duplicates"] == 1  # 1 -> 0
    for label in ("Modularity Class", "modularity_class"):  # its title or its id
        node = readers.read_gexf(tmp_path / "x", "node_cls", label=label)
        assert node.counts == {"num_nodes": 12, "num_edges": 14, "num_classes": 3}
        assert node.arrays["y"].tolist()[:4] == [0, 1, 2, 0] and "label_mapping" not in node.notes


GEXF_13 = """<?xml version='1.0' encoding='utf-8'?>
<gexf xmlns="http://gexf.net/1.3" xmlns:viz="http://gexf.net/1.3/viz" version="1.3">
  <graph defaultedgetype="undirected" mode="dynamic" timeformat="double">
    <attributes class="node" mode="static">
      <attribute id="0" title="role" type="string"><default>member</default></attribute>
    </attributes>
    <attributes class="edge" mode="static">
      <attribute id="0" title="since" type="integer"/>
    </attributes>
    <nodes>
      <node id="ann" label="Ann"><attvalues><attvalue for="0" value="chair"/></attvalues></node>
      <node id="bo" label="Bo"/>
      <node id="cy" label="Cy"><attvalues><attvalue for="0" value="chair"/></attvalues></node>
      <node id="di" label="Di"/>
    </nodes>
    <edges>
      <edge id="0" source="ann" target="bo" weight="2.0" start="1.0" end="3.0"/>
      <edge id="1" source="bo" target="ann" weight="2.0"/>
      <edge id="2" source="bo" target="cy"><attvalues><attvalue for="0" value="2019"/></attvalues></edge>
      <edge id="3" source="cy" target="di" type="directed"><spells><spell start="1.0" end="2.0"/></spells></edge>
    </edges>
  </graph>
</gexf>
"""


def test_gexf_13_weights_times_and_a_default_value(tmp_path):
    (tmp_path / "net.xml").write_text(GEXF_13)  # any suffix: told by its <gexf> root
    assert readers.guess_format(tmp_path / "net.xml") == "gexf"
    b = readers.read_dataset(tmp_path / "net.xml", "link_pred")
    assert b.counts["num_edges"] == 3 and b.counts["num_edge_records"] == 4
    assert b.dropped["reverse_duplicates"] == 1 and b.dropped["duplicate_edges"] == 0
    assert b.dropped["weights"] is True and b.dropped["timestamps"] is True
    assert b.dropped["edge_attributes"] == ["since", "weight"]  # start/end: the times
    node = readers.read_gexf(tmp_path / "net.xml", "node_cls", label="role")
    assert node.notes["label_mapping"] == {"0": "chair", "1": "member"} and node.arrays["y"].tolist() == [0, 1, 0, 1]


GEPHI_PRE_1 = """<?xml version="1.0" encoding="UTF-8"?>
<gexf xmlns="http://www.gephi.org/gexf" xmlns:viz="http://www.gephi.org/gexf/viz">
  <graph type="static">
    <attributes class="node" type="static">
      <attribute id="0" title="0" type="string"/>
      <attribute id="1" title="1" type="string"/>
    </attributes>
    <nodes>
      <node id="1.0" label="1000">
        <attvalues><attvalue id="0" value="disease"/><attvalue id="1" value="Cancer"/></attvalues>
        <viz:size value="12.0"/><viz:position x="-10.0" y="4.0" z="0.0"/><viz:color b="30" g="40" r="50"/>
      </node>
      <node id="2.0" label="AKT1"><attvalues><attvalue id="0" value="gene"/><attvalue id="1" value="Cancer"/></attvalues></node>
      <node id="3.0" label="1001"><attvalues><attvalue id="0" value="disease"/><attvalue id="1" value="Muscular"/></attvalues></node>
      <node id="4.0" label="LMNA"><attvalues><attvalue id="0" value="gene"/><attvalue id="1" value="Muscular"/></attvalues></node>
    </nodes>
    <edges>
      <edge id="0" source="2.0" target="1.0" weight="1.0"/>
      <edge id="1" source="4.0" target="3.0" weight="3.0"/>
      <edge id="2" source="2.0" target="3.0" weight="1.0"/>
    </edges>
  </graph>
</gexf>
"""


def test_gephi_pre_1_gexf_with_attvalue_id(tmp_path):
    (tmp_path / "diseasome.gexf").write_text(GEPHI_PRE_1)
    b = readers.read_gexf(tmp_path / "diseasome.gexf")
    assert b.counts["num_nodes"] == 4 and b.counts["num_edges"] == 3 and b.dropped["weights"] is True
    assert "declares" in b.notes["node_ids"]  # "1.0", "2.0", ...: strings, in declaration order
    node = readers.read_gexf(tmp_path / "diseasome.gexf", "node_cls", label="0")
    assert node.arrays["y"].tolist() == [0, 1, 0, 1] and node.notes["label_mapping"] == {"0": "disease", "1": "gene"}


def test_gexf_label_changing_over_time_is_not_a_class(tmp_path):
    text = GEXF_13.replace('<attvalue for="0" value="chair"/></attvalues></node>\n      <node id="bo"',
                           '<attvalue for="0" value="chair" start="0"/><attvalue for="0" value="guest" start="2"/>'
                           '</attvalues></node>\n      <node id="bo"')
    (tmp_path / "d.gexf").write_text(text)
    with pytest.raises(readers.ReadError, match=r"d\.gexf, line 11: .*several values over time"):
        readers.read_gexf(tmp_path / "d.gexf", "node_cls", label="role")


# ------------------------------------------------------------------------------------------ Pajek


def write_pajek(folder, name="fixture.net"):
    """A Pajek .net: comments, a *Network line, *Vertices with quoted names holding blanks, coordinates
    and colours, vertex lines left out for some, *Arcs with real weights, *Edges with a reverse record
    and options, *arcslist and *EDGESLIST in other cases, two vertices without edges, CRLF."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["% written by Pajek 5.16", '*Network "Fixture net"', "*Vertices 14",
             '1 "Ana Maria" 0.1 0.2 0.5 ic Red bc Black', '2 "Ben de Vries" 0.3 0.4 0.5', "3 Cleo",
             '4 "D" 0.9 0.9 0.5 box', "%   (vertices 5..14 are not listed: Pajek allows that)",
             "*Arcs", "1 2 1.5", "2 3 0.25", "3 1 1", "", "*Edges", "3 4 1 c Blue", "4 3", "4 5 2 w 3 l \"a tie\"",
             "5 6", "5 5", "*arcslist", "6 7 8 9", "*EDGESLIST", "9 10 11 12", "10 9"]
    (folder / name).write_bytes(CRLF.join(lines).encode() + CRLF.encode())
    # arcs 1-2, 2-3, 3-1; edges 3-4, 4-5, 5-6; arcs 6-7, 6-8, 6-9; edges 9-10, 9-11, 9-12
    return {"num_nodes": 12, "num_edges": 12, "records": 15, "declared": 14}


def test_pajek_sections_weights_and_declared_vertices(tmp_path):
    want = write_pajek(tmp_path / "p")
    b = readers.read_dataset(tmp_path / "p", "link_pred")
    assert b.notes["format"] == "pajek"
    assert b.counts == {"num_nodes": want["num_nodes"], "num_edges": want["num_edges"],
                        "num_edge_records": want["records"], "num_declared_nodes": want["declared"]}
    assert b.dropped == {"self_loops": 1, "duplicate_edges": 0, "reverse_duplicates": 2, "weights": True,
                         "edge_attributes": ["c", "l", "w"], "isolated_nodes": 2}
    assert b.notes["edge_directions"] == {"directed": 6, "undirected": 9}
    assert b.arrays["edge_index"][:, :3].tolist() == [[0, 0, 1], [1, 2, 2]]  # 1-based ids, numbered in order
    assert readers.read_pajek(tmp_path / "p").counts == b.counts


def test_pajek_two_mode_matrix_and_a_partition_beside_the_network(tmp_path):
    (tmp_path / "club.net").write_text("*network clubs\n*vertices 5 2\n1 \"Club A\"\n2 \"Club B\"\n*matrix\n"
                                       "1 0 1\n0 2 1\n")
    (tmp_path / "club.clu").write_text("*Vertices 5\n1\n1\n2\n2\n2\n")  # a partition: not the network
    assert readers.guess_format(tmp_path) == "pajek"
    b = readers.read_dataset(tmp_path, "link_pred")
    assert [f.name for f in b.files] == ["club.net"]
    assert b.counts["num_edges"] == 4 and b.counts["num_directed_edges"] == 4
    assert b.arrays["edge_index"].tolist() == [[0, 0, 1, 1], [2, 4, 3, 4]]  # columns are vertices 3..5
    assert b.notes["two_mode"] == {"first_mode": 2, "second_mode": 3} and b.dropped["weights"] is True
    (tmp_path / "club.clu").unlink()
    (tmp_path / "club.net").write_text("*Network a\n*Vertices 3\n*Edges :1 \"likes\"\n1 2\n*Edges :2 \"helps\"\n"
                                       "2 3\n*Partition roles\n*Vertices 3\n1\n2\n1\n")
    b = readers.read_dataset(tmp_path, "link_pred")
    assert b.dropped["layers"] is True and b.notes["ignored_sections"] == ["*Partition roles"]


@pytest.mark.parametrize("text, parts", [
    ("*Vertices 3\n*Edges\n1 2\n2 4\n", ["net.net, line 4", "a vertex number 1..3", "found '4'"]),
    ("*Vertices 3\n*Edges\n1 x\n", ["line 3", "found 'x'"]),
    ("*Vertices 3\n*Edges\n1\n", ["line 3", "two vertex numbers"]),
    ("*Vertices 3\n*Matrix\n0 1\n", ["line 3", "a matrix row of 3 numbers"]),
    ("*Vertices 3\n*Events\n1 2\n", ["line 2", "a Pajek section", "found '*Events'"]),
    ("*Network a\n*Vertices 2\n*Edges\n1 2\n*Network b\n", ["line 5", "one network per file"]),
    ("*Vertices two\n", ["line 1", "'*Vertices N'"]),
])
def test_a_bad_pajek_file_names_the_line(tmp_path, text, parts):
    (tmp_path / "net.net").write_text(text)
    with pytest.raises(readers.ReadError) as info:
        readers.read_dataset(tmp_path / "net.net", "link_pred", format="pajek")
    for part in parts:
        assert part in str(info.value), (part, str(info.value))


# ------------------------------------------------------------------------------------------ all three


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE graphml [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<graphml><key id="d0" for="node" attr.name="c"/><graph edgedefault="undirected">
<node id="a"><data key="d0">&lol3;</data></node><node id="b"><data key="d0">x</data></node>
<edge source="a" target="b"/></graph></graphml>
"""


@pytest.mark.parametrize("fmt, text, parts", [
    ("graphml", BILLION_LAUGHS, ["line 2", "without a DOCTYPE", "<!DOCTYPE graphml"]),
    ("gexf", GEXF_13.replace("<gexf ", '<!DOCTYPE gexf SYSTEM "http://example.org/gexf.dtd">\n<gexf ', 1),
     ["line 2", "entities are not expanded"]),
    ("graphml", '<graphml><graph edgedefault="undirected"><node id="a"/>\n<node id="b">\n</graph></graphml>',
     ["line 3", "well-formed XML", "mismatched tag"]),
    ("graphml", '<graphml><graph edgedefault="undirected"><node id="a"/>\n<edge source="a" target="b"/>'
                '</graph></graphml>', ["line 2", "edges between declared nodes", "'b': no node has that id"]),
    ("graphml", '<graphml><graph edgedefault="undirected"><node id="a"/>\n<node id="a"/></graph></graphml>',
     ["line 2", "distinct node ids", "first at line 1"]),
    ("graphml", '<graphml><graph edgedefault="undirected"><node id="a"/><node id="b"/>\n'
                '<hyperedge><endpoint node="a"/><endpoint node="b"/></hyperedge></graph></graphml>',
     ["line 2", "<hyperedge>"]),
    ("graphml", '<graphml><graph edgedefault="undirected"/>\n<graph edgedefault="directed"/></graphml>',
     ["line 2", "one <graph> in the file"]),
    ("graphml", '<graphml><graph edgedefault="sideways"/></graphml>', ["edgedefault one of", "'sideways'"]),
    ("gexf", '<gexf><graph><edges>\n<edge source="a" target="b" type="both"/></edges></graph></gexf>',
     ["line 2", "type= one of undirected, directed, mutual", "'both'"]),
    ("gexf", '<gexf><graph><nodes><node id="a"><attvalues>\n<attvalue value="1"/></attvalues></node></nodes>'
             '</graph></gexf>', ["line 2", "without for/id"]),
    ("gexf", '<graphml/>', ["a <gexf> document", "<graphml>"]),
])
def test_hostile_and_bad_xml_is_refused_with_its_line(tmp_path, fmt, text, parts):
    (tmp_path / f"bad.{fmt}").write_text(text)
    with pytest.raises(readers.ReadError) as info:
        readers.read_dataset(tmp_path / f"bad.{fmt}", "link_pred", format=fmt)
    for part in parts:
        assert part in str(info.value), (part, str(info.value))


def test_formats_are_told_by_content_before_edge_lists(tmp_path):
    assert FORMATS.index("graphml") < FORMATS.index("edgelist") and FORMATS.index("pajek") < FORMATS.index("konect")
    write_graphml(tmp_path / "a", name="export.xml")
    write_pajek(tmp_path / "b", name="network.txt")  # a .txt that an edge list would claim
    (tmp_path / "c").mkdir()
    with gzip.open(tmp_path / "c" / "g.graphml.gz", "wb") as fh:
        fh.write(YED.encode())
    (tmp_path / "c" / "README.md").write_text("not data")
    assert readers.guess_format(tmp_path / "a") == "graphml"
    assert readers.guess_format(tmp_path / "b") == "pajek"
    assert readers.guess_format(tmp_path / "c") == "graphml"  # compressed, told by its name
    assert readers.read_dataset(tmp_path / "c", "link_pred").counts["num_edges"] == 3
    assert readers.read_dataset(tmp_path / "b", "link_pred").counts["num_edges"] == 12
    with pytest.raises(readers.ReadError, match="the files look like 'graphml'"):
        readers.read_dataset(tmp_path / "a", "link_pred", format="gexf")


@pytest.mark.filterwarnings("ignore:Node attribute group is not processed")  # networkx's Pajek writer
def test_the_same_network_from_every_export_is_the_same_graph(tmp_path):
    nx = pytest.importorskip("networkx")
    les = nx.convert_node_labels_to_integers(nx.les_miserables_graph(), ordering="sorted", label_attribute="name")
    g = nx.Graph()  # nodes inserted in id order: networkx numbers GML ids (and Pajek's) in insertion order
    g.add_nodes_from(sorted(les.nodes(data=True)))
    g.add_edges_from(les.edges(data=True))
    for v in g:
        g.nodes[v]["group"] = len(g.nodes[v]["name"]) % 4
    nx.write_gml(g, tmp_path / "m.gml")
    nx.write_graphml(g, tmp_path / "m.graphml")
    nx.write_gexf(g, tmp_path / "m.gexf")
    nx.write_gexf(g, tmp_path / "m13.gexf", version="1.3")
    nx.write_pajek(g, tmp_path / "m.net")
    arrays = {f: readers.read_dataset(tmp_path / f, "link_pred").arrays["edge_index"]
              for f in ("m.gml", "m.graphml", "m.gexf", "m13.gexf", "m.net")}
    for f, ei in arrays.items():
        assert np.array_equal(ei, arrays["m.gml"]), f
    assert arrays["m.gml"].shape[1] == g.number_of_edges()
    y = {f: readers.read_dataset(tmp_path / f, "node_cls", label="group").arrays["y"]
         for f in ("m.gml", "m.graphml", "m.gexf")}
    assert np.array_equal(y["m.graphml"], y["m.gml"]) and np.array_equal(y["m.gexf"], y["m.gml"])


def test_what_networkx_loses_on_these_files(tmp_path):
    """Why these readers do not go through networkx (tool_formats' docstring), on the pinned version:
    a mixed graph is refused, reverse records are merged, the pre-1.0 GEXF namespace is refused,
    Pajek vertices with one name become one node."""
    nx = pytest.importorskip("networkx")
    write_graphml(tmp_path / "g")
    with pytest.raises(nx.NetworkXError, match="directed=true edge found in undirected graph"):
        nx.read_graphml(tmp_path / "g" / "friends.graphml")
    for second, want in (('source="1" target="0"', (0, 1)), ('source="0" target="1"', (1, 0))):  # reverse, repeat
        (tmp_path / "u.graphml").write_text('<graphml><graph edgedefault="undirected"><node id="0"/><node id="1"/>'
                                            f'<edge source="0" target="1"/><edge {second}/></graph></graphml>')
        assert list(nx.read_graphml(tmp_path / "u.graphml").edges()) == [("0", "1"), ("0", "1")]  # alike to networkx
        ours = readers.read_graphml(tmp_path / "u.graphml").dropped
        assert (ours["duplicate_edges"], ours.get("reverse_duplicates", 0)) == want
    (tmp_path / "d.gexf").write_text(GEPHI_PRE_1)
    with pytest.raises(nx.NetworkXError):
        nx.read_gexf(tmp_path / "d.gexf")
    (tmp_path / "same.net").write_text('*Vertices 3\n1 "x"\n2 "x"\n3 "y"\n*Edges\n1 2\n2 3\n')
    assert nx.read_pajek(tmp_path / "same.net").number_of_nodes() == 2  # networkx names nodes by label
    assert readers.read_pajek(tmp_path / "same.net").counts["num_nodes"] == 3


# ------------------------------------------------------------------------------------------ custom_tasks


def test_label_is_accepted_for_graphml_and_gexf_and_refused_for_pajek(tmp_path):
    assert {"graphml", "gexf"} <= set(LABELLED) and "pajek" not in LABELLED
    ok = {"path": "raw/x.graphml", "family": "node_cls", "format": "graphml", "label": "community"}
    bad = {"path": "raw/x.net", "family": "node_cls", "format": "pajek", "label": "x"}
    path = tmp_path / "params.yaml"
    try:
        path.write_text(yaml.safe_dump({"tasks": ["tf_ok"], "models": ["GCN"], "custom_tasks": {"tf_ok": ok}}))
        load_config(path)
        path.write_text(yaml.safe_dump({"tasks": ["tf_bad"], "models": ["GCN"], "custom_tasks": {"tf_bad": bad}}))
        with pytest.raises(ParamsError, match="format 'pajek' serves link_pred, not 'node_cls'"):
            load_config(path)
    finally:
        for tid in ("tf_ok", "tf_bad"):
            TASKS.pop(tid, None)
            DATASETS.pop(tid, None)
            custom._REGISTERED.pop(tid, None)


def test_a_declared_gexf_task_records_format_hashes_and_what_was_dropped(tmp_path):
    write_gexf_12(tmp_path / "raw")
    arrays, counts, record = custom.process(str(tmp_path / "data" / "tf_gexf"), "node_cls",
                                            path=str(tmp_path / "raw"), format=None, label="Modularity Class")
    assert record["format"] == "gexf" and list(record["raw_sha256"]) == ["gephi.gexf"]
    assert counts["num_classes"] == 3 and record["notes"]["label"] == "Modularity Class"
    assert record["dropped"]["reverse_duplicates"] == 1 and "edge_directions" in record["notes"]
    json.dumps(record)  # meta.json-ready
