from .cluster_dw import ClusterWrapper
from .graphsage_dw import GraphSAGEDataWrapper
from .unsup_graphsage_dw import UnsupGraphSAGEDataWrapper
from .m3s_dw import M3SDataWrapper
from .network_embedding_dw import NetworkEmbeddingDataWrapper
from .node_classification_dw import FullBatchNodeClfDataWrapper
from .pprgo_dw import PPRGoDataWrapper
from .sagn_dw import SAGNDataWrapper
