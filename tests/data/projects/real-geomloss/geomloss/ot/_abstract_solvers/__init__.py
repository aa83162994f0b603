from .sinkhorn_ot import sinkhorn_loop
from .sinkhorn_barycenters import sinkhorn_barycenter_loop
from .annealing import max_diameter, annealing_parameters
