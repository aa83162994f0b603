"""Motion imitation environments for legged robots."""
