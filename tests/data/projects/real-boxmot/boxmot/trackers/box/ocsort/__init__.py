"""OcSort box-tracker implementation package."""
