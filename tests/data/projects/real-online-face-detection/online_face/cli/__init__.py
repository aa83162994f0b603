"""Command-line entry points for online_face."""
