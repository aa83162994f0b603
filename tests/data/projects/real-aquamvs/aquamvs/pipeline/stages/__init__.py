"""Pipeline stage modules (internal - not part of public API)."""
