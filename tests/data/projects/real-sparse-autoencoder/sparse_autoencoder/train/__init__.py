"""Train."""
