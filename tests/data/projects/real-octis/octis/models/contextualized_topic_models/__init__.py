"""Top-level package for Contextualized Topic Models."""

__author__ = """Federico Bianchi"""
__email__ = 'f.bianchi@unibocconi.it'
__version__ = '1.7.0'
