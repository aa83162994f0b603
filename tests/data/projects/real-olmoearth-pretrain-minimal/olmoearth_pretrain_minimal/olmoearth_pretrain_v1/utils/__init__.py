"""Utility modules for OlmoEarth Pretrain."""
