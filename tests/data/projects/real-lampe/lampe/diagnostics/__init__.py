r"""Diagnostics and reliability assessment."""

from .coverage import *
