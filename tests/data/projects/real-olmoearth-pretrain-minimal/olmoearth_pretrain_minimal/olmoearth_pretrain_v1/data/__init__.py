"""Data utilities for OlmoEarth Pretrain v1."""
