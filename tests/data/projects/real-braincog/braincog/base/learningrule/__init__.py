from .BCM import BCM
from .Hebb import Hebb
from .RSTDP import RSTDP
from .STDP import STDP, MutliInputSTDP, LTP, LTD, FullSTDP
from .STP import short_time


__all__ = [
    'BCM',
    "Hebb",
    'RSTDP',
    'STDP', 'MutliInputSTDP', 'LTP', 'LTD', 'FullSTDP',
    'short_time'
]
