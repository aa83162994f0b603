from .mxbai_rerank_v1 import MxbaiRerankV1
from .mxbai_rerank_v2 import MxbaiRerankV2

__all__ = ["MxbaiRerankV1", "MxbaiRerankV2"]
