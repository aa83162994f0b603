"""PDF evidence and pure preprocessing; extraction backends are loaded separately."""
