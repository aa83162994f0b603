ENABLE_VALIDATION = False
"""Validation can help catching bugs and issues but it slows down training and collection. Enable it only if needed."""
