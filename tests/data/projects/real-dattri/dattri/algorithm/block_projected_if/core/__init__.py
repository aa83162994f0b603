"""Core module for gradient computation."""

# Empty __init__.py file to mark directory as a package
