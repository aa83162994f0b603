"""Attention, feedforward, scaling, and checkpoint-backed tensor primitives."""
