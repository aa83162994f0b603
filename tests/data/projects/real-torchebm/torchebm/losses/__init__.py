"""
Loss functions for training energy-based models and generative models.
"""

__all__ = [
    # Contrastive Divergence
    "ContrastiveDivergence",
    "PersistentContrastiveDivergence",
    # Score Matching
    "ScoreMatching",
    "DenoisingScoreMatching",
    "SlicedScoreMatching",
    # Equilibrium Matching
    "EquilibriumMatchingLoss",
    # Flow Matching
    "FlowMatchingLoss",
    # Energy Matching
    "EnergyMatchingLoss",
    # Utilities
    "mean_flat",
    "get_interpolant",
    "trimmed_mean",
    "compute_flow_weight",
    "compute_eqm_ct",
    "dispersive_loss",
]

_LAZY_IMPORTS = {
    "ContrastiveDivergence": ".contrastive_divergence",
    "PersistentContrastiveDivergence": ".contrastive_divergence",
    "ScoreMatching": ".score_matching",
    "DenoisingScoreMatching": ".score_matching",
    "SlicedScoreMatching": ".score_matching",
    "EquilibriumMatchingLoss": ".equilibrium_matching",
    "FlowMatchingLoss": ".flow_matching",
    "EnergyMatchingLoss": ".energy_matching",
    "mean_flat": ".loss_utils",
    "get_interpolant": ".loss_utils",
    "trimmed_mean": ".loss_utils",
    "compute_flow_weight": ".loss_utils",
    "compute_eqm_ct": ".loss_utils",
    "dispersive_loss": ".loss_utils",
}


def __getattr__(name: str):
    if name in _LAZY_IMPORTS:
        import importlib

        module = importlib.import_module(_LAZY_IMPORTS[name], __package__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
