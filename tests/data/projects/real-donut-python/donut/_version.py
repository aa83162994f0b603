"""
Donut
Copyright (c) 2022-present NAVER Corp.
MIT License
"""
__version__ = "1.0.9"
