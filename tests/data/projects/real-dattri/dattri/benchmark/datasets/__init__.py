"""This module contains benchmark dataset related functions."""
