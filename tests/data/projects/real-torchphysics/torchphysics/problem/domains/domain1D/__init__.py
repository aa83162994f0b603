from .interval import Interval
