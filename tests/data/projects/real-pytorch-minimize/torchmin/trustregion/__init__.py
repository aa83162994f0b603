from .ncg import _minimize_trust_ncg
from .exact import _minimize_trust_exact
from .dogleg import _minimize_dogleg
from .krylov import _minimize_trust_krylov