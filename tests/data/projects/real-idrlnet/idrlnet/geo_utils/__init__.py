from .geo_builder import GeometryBuilder
from .geo_obj import *
from .sympy_np import *
