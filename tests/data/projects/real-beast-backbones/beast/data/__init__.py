"""Data loading and processing utilities for BEAST."""
