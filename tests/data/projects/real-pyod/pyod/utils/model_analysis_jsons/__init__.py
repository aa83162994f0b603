"""Per-model analysis JSON payloads packaged as a data subpackage."""
