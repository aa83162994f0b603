from .batch_td import BatchTD
from .fqi import FQI
from .double_fqi import DoubleFQI
from .boosted_fqi import BoostedFQI
from .lspi import LSPI

__all__ = ['FQI', 'DoubleFQI', 'BoostedFQI', 'LSPI']
