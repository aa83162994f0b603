__all__ = ['SharedBottom', 'ESMM', 'MMOE', 'PLE', 'AITM']

from .aitm import AITM
from .esmm import ESMM
from .mmoe import MMOE
from .ple import PLE
from .shared_bottom import SharedBottom
