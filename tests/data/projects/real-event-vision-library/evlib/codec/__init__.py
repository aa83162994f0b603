"""Event data I/O"""
