from .cholesky import solve_cholesky
from .lu_decomposition import solve_lu
from .syevd import eigh

all = [
    "solve_cholesky",
    "solve_lu",
    "eigh"
]