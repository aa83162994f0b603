import sys

from fme.ace.aggregator.inference.annual import AnnualMetricConfig
from fme.ace.aggregator.inference.enso.dynamic_index import EnsoIndexMetricConfig
from fme.ace.aggregator.inference.enso.enso_coefficient import (
    EnsoCoefficientMetricConfig,
)
from fme.ace.aggregator.inference.histogram import HistogramMetricConfig
from fme.ace.aggregator.inference.ipo.ipo_index import IpoIndexMetricConfig
from fme.ace.aggregator.inference.main import (
    InferenceEvaluatorAggregatorConfig,
    LegacyFlagInferenceEvaluatorAggregatorConfig,
    StepMeanEntry,
)
from fme.ace.aggregator.inference.near_zero_fraction import NearZeroFractionMetricConfig
from fme.ace.aggregator.inference.reduced import MeanMetricConfig
from fme.ace.aggregator.inference.seasonal import SeasonalMetricConfig
from fme.ace.aggregator.inference.spectrum import PowerSpectrumMetricConfig
from fme.ace.aggregator.inference.step_diagnostics import StepDiagnosticsMetricConfig
from fme.ace.aggregator.inference.time_mean import TimeMeanMetricConfig
from fme.ace.aggregator.inference.trend import TrendMetricConfig
from fme.ace.aggregator.inference.video import VideoMetricConfig
from fme.ace.aggregator.inference.zonal_mean import ZonalMeanMetricConfig
from fme.ace.aggregator.one_step import (
    LegacyFlagOneStepAggregatorConfig,
    OneStepAggregatorConfig,
    build_one_step_aggregator,
)
from fme.ace.aggregator.one_step.ensemble import (
    EnsembleMetricConfig,
    OneStepEnsembleMetricConfig,
)
from fme.ace.aggregator.one_step.map import OneStepMapMetricConfig
from fme.ace.aggregator.one_step.reduced import (
    OneStepMeanMetricConfig,
    StepMeanMetricConfig,
)
from fme.ace.aggregator.one_step.snapshot import OneStepSnapshotMetricConfig
from fme.ace.aggregator.one_step.spectrum import OneStepSpectrumMetricConfig
from fme.ace.aggregator.train import TrainAggregatorConfig
from fme.ace.data_loading.augmentation import AugmentationConfig
from fme.ace.data_loading.getters import get_forcing_data
from fme.ace.data_loading.inference import (
    ExplicitIndices,
    InferenceInitialConditionIndices,
    TimestampList,
)
from fme.ace.data_loading.perturbation import (
    ConstantConfig,
    GreensFunctionConfig,
    PerturbationSelector,
    SSTPerturbation,
)
from fme.ace.inference.data_writer import DataWriterConfig, FileWriterConfig
from fme.ace.inference.data_writer.time_coarsen import TimeCoarsenConfig
from fme.ace.inference.evaluator import (
    InferenceDataLoaderConfig,
    InferenceEvaluatorConfig,
    ValidationConfig,
    run_evaluator_from_config,
)
from fme.ace.inference.inference import (
    ForcingDataLoaderConfig,
    InferenceAggregatorConfig,
    InferenceConfig,
    InitialConditionConfig,
    run_inference_from_config,
)
from fme.ace.models.healpix.healpix_activations import CappedGELUConfig
from fme.ace.models.healpix.healpix_blocks import (
    ConvBlockConfig,
    DownsamplingBlockConfig,
    UpsamplingBlockConfig,
)
from fme.ace.registry.hpx import (
    HEALPixUNetBuilder,
    UNetDecoderConfig,
    UNetEncoderConfig,
)
from fme.ace.registry.land_net import LandNetBuilder
from fme.ace.registry.m2lines import FloeNetBuilder, SamudraBuilder
from fme.ace.registry.sfno import SFNO_V0_1_0, SphericalFourierNeuralOperatorBuilder
from fme.ace.registry.stochastic_sfno import NoiseConditionedSFNO
from fme.ace.stepper import DerivedForcingsConfig, StepperOverrideConfig
from fme.ace.stepper.insolation.config import InsolationConfig, NameConfig, ValueConfig
from fme.ace.stepper.parameter_init import (
    FrozenParameterConfig,
    ParameterClassification,
    ParameterInitializationConfig,
)
from fme.ace.stepper.single_module import (
    CheckpointStepperConfig,
    Stepper,
    StepperConfig,
    StepSelector,
    TrainStepperConfig,
)
from fme.ace.stepper.time_length_probabilities import (
    TimeLengthMilestone,
    TimeLengthProbabilities,
    TimeLengthProbability,
    TimeLengthSchedule,
)
from fme.core.cli import ResumeResultsConfig
from fme.core.corrector.atmosphere import AtmosphereCorrectorConfig
from fme.core.corrector.ice import IceCorrectorConfig
from fme.core.corrector.loss_config import (
    CorrectorLossConfig,
    CorrectorRegularizationConfig,
    PreCorrectorOptimizationConfig,
)
from fme.core.corrector.ocean import OceanCorrectorConfig
from fme.core.dataset.concat import ConcatDatasetConfig
from fme.core.dataset.merged import MergeDatasetConfig, MergeNoConcatDatasetConfig
from fme.core.dataset.time import RepeatedInterval, TimeSlice
from fme.core.dataset.utils import FillNaNsConfig
from fme.core.dataset.xarray import OverwriteConfig, XarrayDataConfig
from fme.core.generics.lr_tuning import LRTuningConfig
from fme.core.gridded_ops import GriddedOperations
from fme.core.loss import StepLossConfig
from fme.core.normalizer import NormalizationConfig
from fme.core.ocean import OceanConfig, SlabOceanConfig
from fme.core.optimization import CheckpointConfig
from fme.core.registry.corrector import CorrectorSelector
from fme.core.registry.module import ModuleSelector
from fme.core.scheduler import SchedulerConfig, SequentialSchedulerConfig
from fme.core.spatial_masking import StaticSpatialMaskingConfig
from fme.core.step import (
    MultiCallStepConfig,
    SeparateRadiationStepConfig,
    SingleModuleStepConfig,
)
from fme.core.step.multi_call import MultiCallConfig
from fme.core.typing_ import Slice
from fme.core.var_masking import (
    BernoulliMaskingConfig,
    MaskingGroupConfig,
    UniformMaskingConfig,
    VariableMaskingConfig,
)

from . import step
from .inference.inference import get_initial_condition
from .requirements import InitialConditionRequirements
from .train.train import run_train
from .train.train_config import (
    CopyWeightsConfig,
    DataLoaderConfig,
    EMAConfig,
    InlineInferenceConfig,
    InlineValidationConfig,
    LoggingConfig,
    OptimizationConfig,
    TrainConfig,
)

# Get all the names defined in the current module
module = sys.modules[__name__]
__all__ = [name for name in dir(module) if not name.startswith("_")]
del sys, module
