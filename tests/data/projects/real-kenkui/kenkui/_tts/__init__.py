"""Private text-to-speech implementation package."""
