from .circle import Circle
from .parallelogram import Parallelogram
from .triangle import Triangle

# from .shapely_polygon import ShapelyPolygon
