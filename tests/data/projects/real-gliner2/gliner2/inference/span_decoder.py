"""Compatibility imports for deterministic entity-span decoding."""

from gliner2.inference.candidate_decoder import RawSpan, finalize_spans

__all__ = ["RawSpan", "finalize_spans"]
