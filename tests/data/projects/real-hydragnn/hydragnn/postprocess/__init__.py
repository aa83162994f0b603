from .visualizer import Visualizer
from .postprocess import output_denormalize, unscale_features_by_num_nodes
