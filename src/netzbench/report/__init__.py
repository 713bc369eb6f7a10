"""The statistical report: ``BenchmarkReport``, its writers and figures.

- :mod:`.core` -- :class:`BenchmarkReport` (selection, per-cell CIs, paired tests,
  power, equivalence, ranks, Friedman/Nemenyi, stability, plots, JSON);
- :mod:`.runs` -- reading run records (roster from params.yaml);
- :mod:`.latex` -- booktabs exporters; :mod:`.plots` -- figures;
- :mod:`.markdown` -- REPORT.md; :mod:`.paper` -- the paper's Table 3;
- :mod:`.stage` -- the ``report`` pipeline stage.
"""

from .core import SCHEMA, BenchmarkReport

__all__ = ["BenchmarkReport", "SCHEMA"]
