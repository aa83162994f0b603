"""Package resources for the simplified trainer."""
