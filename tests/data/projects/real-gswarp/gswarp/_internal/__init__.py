"""Internal implementation package for gswarp."""
