from pymatting.preconditioner.ichol import ichol
from pymatting.preconditioner.jacobi import jacobi
from pymatting.preconditioner.vcycle import vcycle
