"""Version information - references canonical package version."""

from groundeddino_vl.version import __version__

__all__ = ["__version__"]
