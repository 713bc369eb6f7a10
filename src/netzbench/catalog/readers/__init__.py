"""Readers for raw dataset formats (one module per format family)."""
