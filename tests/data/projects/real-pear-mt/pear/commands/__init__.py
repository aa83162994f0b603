"""Console entry points for PEAR."""
