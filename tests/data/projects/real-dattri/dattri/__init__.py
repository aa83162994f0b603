"""dattri module."""
