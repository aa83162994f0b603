"""Train Utils."""
