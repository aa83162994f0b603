"""Internal functional domain package."""
