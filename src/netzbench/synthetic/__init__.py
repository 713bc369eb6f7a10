"""Seed-aware data generators: the graphs of synthetic tasks, made at training time.

Every generator is a pure function ``(seed, **params) -> (arrays, counts)``:
the same seed gives byte-identical arrays (one independent random stream per
generator and seed, :func:`netzbench.graphs.rng.rng_for`), and adding seeds
never changes the instances of existing ones. Outputs follow
:mod:`netzbench.graphs.layout`; link-prediction graphs are sorted unique
undirected pairs ``i < j`` with float32 ``x`` and ``num_nodes``.

- :mod:`.routing` -- random Euclidean TSP, capacitated VRP;
- :mod:`.optimisation` -- max-flow, bipartite matching, graph colouring, max-cut;
- :mod:`.physics` -- the 2-D Ising lattice;
- :mod:`.triangles` -- small random graphs labelled with triangle count and spectral radius;
- :mod:`.user` -- a user's seed-aware loader (``custom_tasks``) called like a generator;
- :mod:`.common` -- shared geometry and random-graph helpers.

Each link-prediction generator of a combinatorial problem has an
``*_instance`` companion returning the problem and the solution it is built
from, so tests can check the combinatorics directly; all solvers are
deterministic given the instance (ties broken by node id).

Part of result identity: a generated task's data is this code.
"""
