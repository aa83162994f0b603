"""Shared utilities for FOMO."""
