"""Span (legacy) architecture package."""

from gliner2.models.span.model import SpanExtractorModel, Extractor

__all__ = ["SpanExtractorModel", "Extractor"]
