"""The statistical report: ``BenchmarkReport``, its writers and figures."""

from .core import BenchmarkReport

__all__ = ["BenchmarkReport"]
