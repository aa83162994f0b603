from .visualize import plot_pc
from .visualize import plot_tensor_node_connection