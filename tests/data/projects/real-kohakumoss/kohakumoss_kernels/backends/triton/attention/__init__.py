"""Triton varlen attention: the kernels, the ops and the registry entry."""
