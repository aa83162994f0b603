"""Kit4DL nn subpackage."""
