"""Handles the device abstraction and conversion."""
