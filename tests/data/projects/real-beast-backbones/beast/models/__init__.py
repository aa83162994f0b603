"""Model architectures for BEAST."""
