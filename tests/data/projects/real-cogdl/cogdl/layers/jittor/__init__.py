from .gcn_layer import GCNLayer
