"""
Version strings
"""

# Current version tag
__version__ = "8.5.0"
