"""Version information for rotalabs-accel."""

__version__ = "1.1.1"
