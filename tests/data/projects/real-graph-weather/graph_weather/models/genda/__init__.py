"""GenDA model package."""

from .model import GenDA
