from .blocks import ResidualBlock

doc = """
Layer blocks wrapping backend convolutions with norm/activation/dropout/residual. Other configurations can be added
"""
