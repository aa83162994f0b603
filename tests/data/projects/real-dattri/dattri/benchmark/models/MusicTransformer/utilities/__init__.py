"""This module defines some utility functions for MT."""
