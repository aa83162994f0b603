"""CAREamics algorithm references."""
