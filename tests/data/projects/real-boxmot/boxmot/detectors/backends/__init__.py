"""Built-in detector backend implementations."""
