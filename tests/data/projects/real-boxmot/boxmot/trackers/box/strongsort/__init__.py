"""StrongSort box-tracker implementation package."""
