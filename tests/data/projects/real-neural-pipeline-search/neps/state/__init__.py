from neps.state.neps_state import NePSState
from neps.state.optimizer import BudgetInfo, OptimizationState
from neps.state.pipeline_eval import EvaluatePipelineReturn, UserResult, evaluate_trial
from neps.state.seed_snapshot import SeedSnapshot
from neps.state.settings import DefaultReportValues, OnErrorPossibilities, WorkerSettings
from neps.state.trial import State, Trial

__all__ = [
    "BudgetInfo",
    "DefaultReportValues",
    "EvaluatePipelineReturn",
    "NePSState",
    "OnErrorPossibilities",
    "OptimizationState",
    "SeedSnapshot",
    "State",
    "Trial",
    "UserResult",
    "WorkerSettings",
    "evaluate_trial",
]
