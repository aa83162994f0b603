"""Core module for Spyrit package, containing the main classes and functions."""
