"""Comparing snapshots: the layer-aware diff, the flattening it runs on, and the impact of each change."""
