__all__ = ["CLPSO", "CSO", "DMSPSOEL", "FSPSO", "PSO", "SLPSOGS", "SLPSOUS"]


from .clpso import CLPSO
from .cso import CSO
from .dms_pso_el import DMSPSOEL
from .fs_pso import FSPSO
from .pso import PSO
from .sl_pso_gs import SLPSOGS
from .sl_pso_us import SLPSOUS
