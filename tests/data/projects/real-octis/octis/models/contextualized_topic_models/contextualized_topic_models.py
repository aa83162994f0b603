"""Main module."""
