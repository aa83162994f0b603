"""This module contains functions for data on the shakespeare dataset."""

from .data import create_shakespeare_dataset
