from .attack_success_rate_evaluator import AttackSuccessRateEvaluator
from .perturbation_distance_evaluator import PerturbationDistanceEvaluator
from .perturbation_effectiveness_evaluator import PerturbationEffectivenessEvaluator
from .robustness_gap_evaluator import RobustnessGapEvaluator
from .similarity_evaluator import SimilarityEvaluator
from .transferability_evaluator import TransferabilityEvaluator

__all__ = [
    "AttackSuccessRateEvaluator",
    "PerturbationDistanceEvaluator",
    "PerturbationEffectivenessEvaluator",
    "RobustnessGapEvaluator",
    "SimilarityEvaluator",
    "TransferabilityEvaluator",
]
