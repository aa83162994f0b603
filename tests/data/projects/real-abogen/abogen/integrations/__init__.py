"""Integration clients for external services."""
