"""Building blocks for WNet model."""
