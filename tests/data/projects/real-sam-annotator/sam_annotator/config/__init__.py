"""Auto-generated __init__.py file."""
