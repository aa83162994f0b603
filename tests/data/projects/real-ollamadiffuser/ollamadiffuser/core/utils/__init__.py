"""
Core utilities package
""" 