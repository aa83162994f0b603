from . import terrain
from .terrain import FlatTerrain, PlaneTerrain, Terrain
