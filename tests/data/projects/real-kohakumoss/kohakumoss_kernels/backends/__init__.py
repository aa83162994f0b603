"""Kernel backends; each package registers its implementations on import."""
