"""
Configuration files for FOMO.

Contains default dataset configurations and model settings.
"""
