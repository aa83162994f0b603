"""Algorithms for (intensity) image reconstruction."""

from .e2vid import E2Vid as E2Vid
