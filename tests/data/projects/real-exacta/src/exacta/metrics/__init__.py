"""Stateful metrics that accumulate per-case values across batches and processes."""

from exacta.metrics.base import MetricResult, PerCaseMetric
from exacta.metrics.collection import MetricCollection
from exacta.metrics.calibration import BrierScore, NegativeLogLikelihood, ExpectedCalibrationError, Calibration
from exacta.metrics.ranking import AveragePrecision, AUROC, VoxelRanking
from exacta.metrics.segmentation import (
    ASSD,
    HD95,
    NSD,
    Dice,
    ClDice,
    HausdorffDistance,
    IoU,
    Precision,
    RelativeVolumeDifference,
    Sensitivity,
    Specificity,
    VolumeSimilarity,
    PredictedVolume, TargetVolume, VolumeError,
    PredictedArea, TargetArea, AreaError,
)

__all__ = [
    "AveragePrecision", "AUROC", "VoxelRanking",
    "PredictedArea", "TargetArea", "AreaError",
    "PredictedVolume", "TargetVolume", "VolumeError",
    "ClDice", "BrierScore", "NegativeLogLikelihood", "ExpectedCalibrationError", "Calibration",
    "ASSD",
    "HD95",
    "NSD",
    "Dice",
    "HausdorffDistance",
    "IoU",
    "MetricResult",
    "MetricCollection",
    "PerCaseMetric",
    "Precision",
    "RelativeVolumeDifference",
    "Sensitivity",
    "Specificity",
    "VolumeSimilarity",
]
