"""Command-line interface for BEAST."""
