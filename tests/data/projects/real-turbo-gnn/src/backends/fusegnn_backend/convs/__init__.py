from .gat_conv import garGATConv, gasGATConv
from .gcn_conv import garGCNConv, gasGCNConv
