"""DeepOcSort box-tracker implementation package."""
