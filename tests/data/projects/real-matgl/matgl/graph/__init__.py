"""Graph construction and manipulation utilities."""
