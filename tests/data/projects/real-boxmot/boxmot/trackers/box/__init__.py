"""Box-state tracker implementations and shared geometry plumbing."""
