"""Training runs."""
