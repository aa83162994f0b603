"""Empty output helpers for public APIs."""
