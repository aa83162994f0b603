"""Per-layer forward binding: chosen once per (mode, backend, multiplier)."""
