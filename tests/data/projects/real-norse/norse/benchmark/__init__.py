"""
Tools and scripts for benchmarking Norse.
"""
