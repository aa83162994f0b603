from . import icalabel
