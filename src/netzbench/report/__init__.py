"""The statistical report: ``BenchmarkReport``, its statistics, writers and figures.

- :mod:`.benchmark` -- :class:`BenchmarkReport`: data model, options, cell
  status, persistence, and one method per statistic delegating to:
- :mod:`.series` -- history series, headline metric and direction;
- :mod:`.selection` -- epoch selection, the metric tensor X, learning curves;
- :mod:`.within_task` -- per-cell CIs, paired tests, power, Wilcoxon floor, equivalence;
- :mod:`.across_task` -- ranks, aggregations, Friedman/Nemenyi, rank stability, candidate;
- :mod:`.availability` -- missing cells and tasks, with reasons; :mod:`.cost` -- compute time;
- :mod:`.persistence` -- the JSON form; :mod:`.runs` -- reading run records (roster from params.yaml);
- :mod:`.latex` -- booktabs exporters; :mod:`.figures` -- figures;
- :mod:`.facts` -- the statistics of one report build, computed once;
- :mod:`.markdown` -- REPORT.md, one function per section; :mod:`.paper` -- the paper's Table 3;
- :mod:`.formatting` -- numbers in text; :mod:`.stage` -- the ``report`` pipeline stage;
- :mod:`.verify` -- two benchmark files compared (``netzbench verify``); :mod:`.verify_input` -- a
  benchmark file read strictly and checked value by value for it;
- :mod:`.compare` -- what run B changes against run A, with paired tests (``netzbench compare``);
  :mod:`.compare_render` -- that as Markdown or a page; :mod:`.sources` -- a run named by a file, a git
  revision or a ``dvc exp`` name.
"""

__all__ = ["BenchmarkReport", "SCHEMA"]


def __getattr__(name: str):
    """``BenchmarkReport`` and ``SCHEMA``, imported when first asked for: a reader of one module (the cost of
    a run, :mod:`.cost`) needs neither statsmodels nor pandas (the GPU device check has none to spare)."""
    if name in __all__:
        from . import benchmark

        return getattr(benchmark, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
