"""Implementations of subcommands."""
