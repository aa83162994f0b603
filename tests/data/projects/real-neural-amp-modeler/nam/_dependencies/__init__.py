"""
Hard-coded dependencies that need to be included manually for some reason.
"""
