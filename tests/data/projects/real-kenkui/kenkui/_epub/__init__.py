"""Private EPUB implementation package."""
