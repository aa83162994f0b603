from .dvs_layer import DVSLayer
from .dynapcnn_layer import DynapcnnLayer
from .dynapcnn_network import DynapcnnCompatibleNetwork, DynapcnnNetwork
from .dynapcnn_visualizer import DynapcnnVisualizer
from .dynapcnnnetwork_module import DynapcnnNetworkModule
from .nir_graph_extractor import GraphExtractor
