"""Some scripts could be used as entry points for the package."""
