"""Alert and visualization utility modules."""
