from importlib.metadata import version as get_version

# The package version is obtained from the pyproject.toml file
__version__ = get_version(__package__)
