"""Memory profiles, the memory model, the auto planner, BlockRunners and plan application."""

from kohakumoss.memory.apply import (
    MemoryEngines,
    apply_inference_plan,
    apply_to_backbone,
    attach_fused_step,
    attach_grad_offload,
)
from kohakumoss.memory.estimate import Estimate, Workload, estimate
from kohakumoss.memory.planner import PlanReport, auto_plan, device_budget
from kohakumoss.memory.profiles import PROFILES, resolve, validate
from kohakumoss.memory.runners import (
    CheckpointRunner,
    OffloadRunner,
    PlainRunner,
    StageRunner,
    StreamRunner,
    build_runner,
    register_saved_op,
)

__all__ = [
    "PROFILES",
    "CheckpointRunner",
    "Estimate",
    "MemoryEngines",
    "OffloadRunner",
    "PlainRunner",
    "PlanReport",
    "StageRunner",
    "StreamRunner",
    "Workload",
    "apply_inference_plan",
    "apply_to_backbone",
    "attach_fused_step",
    "attach_grad_offload",
    "auto_plan",
    "build_runner",
    "device_budget",
    "estimate",
    "register_saved_op",
    "resolve",
    "validate",
]
