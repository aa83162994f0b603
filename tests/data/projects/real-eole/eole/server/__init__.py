"""Inference server runtime and HTTP protocol adapters."""
