"""Private audio implementation package."""
