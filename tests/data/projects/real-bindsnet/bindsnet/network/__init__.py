from bindsnet.network import monitors, nodes, topology
from bindsnet.network.network import Network, load

__all__ = ["Network", "load", "nodes", "topology", "monitors"]
