"""Compatibility imports for record decoding.

The implementation lives in :mod:`gliner2.models.boundary.records`.
"""

from gliner2.models.boundary.records import DecodedRecord, decode_group, derive_count

__all__ = ["DecodedRecord", "decode_group", "derive_count"]
