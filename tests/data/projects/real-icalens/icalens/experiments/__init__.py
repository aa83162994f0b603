"""Reproducible, lazily provisioned ICA Lens experiments."""
