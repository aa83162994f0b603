"""Serving adapters for vLLM, SGLang, and other inference frameworks.

These are stub modules documenting the integration approach. Full
implementations will be provided in a separate ``fade-serving`` package
to keep the core ``fade`` dependency footprint light.
"""
