from .aggregate import fused_gar_agg, fused_gas_agg
from .format import coo2csr, csr2csc
from .gat import gat_gar_edge_weight, gat_gas_edge_weight
from .gcn import gcn_gar_edge_weight, gcn_gas_edge_weight
