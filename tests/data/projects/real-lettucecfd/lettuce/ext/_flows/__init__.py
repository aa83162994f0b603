from ._ext_flow import *

from .taylorgreen import *
from .couette import *
from .poiseuille import *
from .doublyshear import *
from .decayingturbulence import *
from .obstacle import *
from .liddrivencavity import *
from .lamboseenvortex import *

from ._flow_by_name import *

__all__ = [
    'ExtFlow',
    'TaylorGreenVortex',
    'TaylorGreenVortex2D',
    'TaylorGreenVortex3D',
    'CouetteFlow2D',
    'PoiseuilleFlow2D',
    'DoublyPeriodicShear2D',
    'DecayingTurbulence',
    'Obstacle',
    'Cavity2D',
    'LambOseenVortex2D',
    'flow_by_name'
]
