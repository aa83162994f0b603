from .utility import *
from .score_converter import to_edge_score, to_graph_score
