"""Compatibility import for target-graph validation."""

from gliner2.processing.layouts import validate_target_graph

__all__ = ["validate_target_graph"]
