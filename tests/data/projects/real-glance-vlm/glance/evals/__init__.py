"""Eval harness: dataset loaders, metrics, plots, markdown report."""
