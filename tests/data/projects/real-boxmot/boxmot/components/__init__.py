"""Domain-neutral component infrastructure."""
