"""
A module for writing data to Tensorboard.
"""
