from .topomap import get_topomaps
