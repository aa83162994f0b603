from xlb.operator.postprocess.q_criterion import QCriterion
from xlb.operator.postprocess.grid_to_point import GridToPoint
from xlb.operator.postprocess.vorticity import Vorticity
