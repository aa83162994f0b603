from .optim_iterator import OptimIterator, fStep, gStep, objective_function
from .admm import ADMMIteration
from .pgd import PGDIteration, FISTAIteration, PMDIteration
from .primal_dual_CP import CPIteration
from .hqs import HQSIteration
from .drs import DRSIteration
from .gradient_descent import GDIteration, MDIteration
from .spectral_methods import SMIteration
from .sirt import SIRTIteration
from .mlem import MLEMIteration
from .osem import OSEMIteration
from .bsrem import BSREMIteration
from .blind_rl import BlindRLIteration
