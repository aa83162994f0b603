# Single source of truth for the package version.
# Updated here; read by hatchling (pyproject.toml) and __init__.py.
__version__ = "0.5.0"
