"""
Emotion Efficient Library module
"""

__version__ = "1.1.1"
