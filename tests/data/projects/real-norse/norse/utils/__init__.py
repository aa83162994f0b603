"""
Utility module for Norse.
"""
