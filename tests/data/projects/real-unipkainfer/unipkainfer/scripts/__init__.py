"""Uni-pKa preprocessing helpers."""
