"""
The `utils` package provides utility functions and helper modules used across deepaudiox.
Includes audio processing functions / Downloaders / Reporting utils etc.
"""
