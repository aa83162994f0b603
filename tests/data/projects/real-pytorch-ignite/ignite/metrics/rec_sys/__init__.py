from ignite.metrics.rec_sys.hitrate import HitRate
from ignite.metrics.rec_sys.ndcg import NDCG

__all__ = ["HitRate", "NDCG"]
