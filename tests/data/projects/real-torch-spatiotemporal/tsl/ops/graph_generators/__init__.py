from .circle_graph import build_circle_graph
from .knn_graph import build_knn_graph
from .line_graph import build_line_graph
from .tri_community_graph import build_tri_community_graph
