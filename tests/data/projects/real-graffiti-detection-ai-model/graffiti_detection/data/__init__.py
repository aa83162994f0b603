"""Data utilities for augmentation, datasets, and preprocessing."""
