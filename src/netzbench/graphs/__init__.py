"""Processed graphs: the one layout that the catalogue writes and training reads.

- :mod:`.layout` -- ``data/<task>/`` (``graph.npz`` + ``meta.json``): writing,
  reading, hashing, and the arrays of one seed;
- :mod:`.convert` -- PyG ``Data`` / datasets to the layout, and the split a
  task uses when it names none;
- :mod:`.collection` -- graph collections (concatenated graphs with offsets);
- :mod:`.edges` -- undirected pairs, symmetric edge lists, the simple
  message-passing graph;
- :mod:`.features` -- structural node features for graphs without any;
- :mod:`.rng` -- the seeded random streams of generators and splits.

Part of result identity: training computes every number from what these
modules define.
"""
