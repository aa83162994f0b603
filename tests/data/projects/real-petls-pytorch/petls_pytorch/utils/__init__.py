"""Utility helpers for PETLS."""

from petls_pytorch.utils.plotting import summaries, plot_summary

__all__ = ["summaries", "plot_summary"]
