"""Building blocks of the MOSS-Image transformer."""
