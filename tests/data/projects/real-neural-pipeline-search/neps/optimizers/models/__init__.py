from neps.optimizers.models.ftpfn import FTPFNSurrogate
from neps.optimizers.models.gp import make_default_single_obj_gp

__all__ = ["FTPFNSurrogate", "make_default_single_obj_gp"]
