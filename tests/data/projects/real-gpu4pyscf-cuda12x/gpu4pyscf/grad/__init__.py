from gpu4pyscf.grad import rhf
from gpu4pyscf.grad.rhf import Gradients as RHF
from gpu4pyscf.grad.rks import Gradients as RKS
from gpu4pyscf.grad.uhf import Gradients as UHF
from gpu4pyscf.grad.uks import Gradients as UKS
from . import tdrhf
from . import tdrks
from . import tduhf
from . import tduks
