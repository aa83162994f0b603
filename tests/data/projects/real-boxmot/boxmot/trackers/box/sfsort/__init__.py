"""SFSORT box-tracker implementation package."""
