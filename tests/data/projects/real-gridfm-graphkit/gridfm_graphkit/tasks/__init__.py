from gridfm_graphkit.tasks.pf_task import PowerFlowTask
from gridfm_graphkit.tasks.opf_task import OptimalPowerFlowTask
from gridfm_graphkit.tasks.se_task import StateEstimationTask

__all__ = ["PowerFlowTask", "OptimalPowerFlowTask", "StateEstimationTask"]
