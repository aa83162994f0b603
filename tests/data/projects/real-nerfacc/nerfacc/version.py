"""
Copyright (c) 2022 Ruilong Li, UC Berkeley.
"""

__version__ = "0.5.3"
