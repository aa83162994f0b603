"""Deprecated ALIGNN modules kept for backward compatibility."""
