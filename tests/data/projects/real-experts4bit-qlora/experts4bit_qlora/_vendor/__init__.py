"""Vendored bitsandbytes primitives (temporary — see experts.py header for provenance)."""
