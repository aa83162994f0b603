"""Building block of a UNet model.

Used mostly by the TRAILMAP model.
"""
