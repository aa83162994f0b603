"""This module provides the API for the senselab audio preprocessing."""

from .preprocessing import *  # noqa: F403
