from .flow_match import RectifiedFlowScheduler
from .unipc import FlowUniPCMultistepScheduler, UniPCState

__all__ = ["RectifiedFlowScheduler", "FlowUniPCMultistepScheduler", "UniPCState"]
