"""Private execution implementation package."""
