from .simple_chain import generate_simple_chain
from .grid_world import generate_grid_world
from .taxi import generate_taxi
