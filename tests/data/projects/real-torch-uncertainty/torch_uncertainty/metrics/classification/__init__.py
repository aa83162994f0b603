# ruff: noqa: F401
from .brier_score import BrierScore
from .calibration import (
    AdaptiveCalibrationError,
    CalibrationError,
    ClasswiseCalibrationError,
    SmoothCalibrationError,
)
from .categorical_nll import CategoricalNLL
from .coverage_rate import CoverageRate
from .disagreement import Disagreement
from .entropy import Entropy
from .fpr import FPR95, FPRx
from .grouping_loss import GroupingLoss
from .mutual_information import MutualInformation
from .risk_coverage import (
    AUGRC,
    AURC,
    CovAt5Risk,
    CovAtxRisk,
    RiskAt80Cov,
    RiskAtxCov,
)
from .scod_risk_coverage import (
    SCODAUGRC,
    SCODAURC,
    SCODCovAt5Risk,
    SCODCovAtxRisk,
    SCODRiskAt80Cov,
    SCODRiskAtxCov,
)
from .set_size import SetSize
from .variation_ratio import VariationRatio
