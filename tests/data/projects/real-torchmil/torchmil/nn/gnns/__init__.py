from .deepgcn import DeepGCNLayer as DeepGCNLayer
from .gcn_conv import GCNConv as GCNConv
from .chebconv import ChebConv as ChebConv
from .dense_mincut_pool import dense_mincut_pool as dense_mincut_pool
