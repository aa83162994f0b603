"""
Plotters
========

This module allows to plot Musa objects.


Pianoroll
---------

.. autosummary::
    :toctree: generated/

    Pianoroll
    PianorollHTML

"""

from .pianorolls import Pianoroll, PianorollHTML

__all__ = [
    "Pianoroll",
    "PianorollHTML"
]
