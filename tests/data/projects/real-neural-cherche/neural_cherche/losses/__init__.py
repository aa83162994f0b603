from .flops import Flops, FlopsScheduler
from .ranking import Ranking

__all__ = ["Flops", "FlopsScheduler", "Ranking"]
