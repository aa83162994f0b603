"""Internal method specifications."""
