"""This module contains functions to process maestro datasets."""
