"""Inference scheduling, precision, and bounded-memory execution."""
