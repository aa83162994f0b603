"""Normalization configuration files."""
