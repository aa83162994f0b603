"""
Models package for clipx.
"""


