"""HybridSort box-tracker implementation package."""
