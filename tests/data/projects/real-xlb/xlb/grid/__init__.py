from xlb.grid.grid import grid_factory as grid_factory
from xlb.grid.warp_grid import WarpGrid
from xlb.grid.jax_grid import JaxGrid

__all__ = ["grid_factory", "WarpGrid", "JaxGrid"]
