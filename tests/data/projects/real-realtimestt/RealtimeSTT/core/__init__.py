"""
Contains internal implementation modules for the public recorder API.
"""
