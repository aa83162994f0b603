"""Sparse Autoencoder Library."""
from sparse_autoencoder.activation_resampler.activation_resampler import ActivationResampler
from sparse_autoencoder.activation_store.tensor_store import TensorActivationStore
from sparse_autoencoder.autoencoder.model import SparseAutoencoder, SparseAutoencoderConfig
from sparse_autoencoder.loss.abstract_loss import LossReductionType
from sparse_autoencoder.loss.decoded_activations_l2 import L2ReconstructionLoss
from sparse_autoencoder.loss.learned_activations_l1 import LearnedActivationsL1Loss
from sparse_autoencoder.loss.reducer import LossReducer
from sparse_autoencoder.metrics.train.capacity import CapacityMetric
from sparse_autoencoder.metrics.train.feature_density import TrainBatchFeatureDensityMetric
from sparse_autoencoder.optimizer.adam_with_reset import AdamWithReset
from sparse_autoencoder.source_data.pretokenized_dataset import PreTokenizedDataset
from sparse_autoencoder.source_data.text_dataset import TextDataset
from sparse_autoencoder.train.pipeline import Pipeline
from sparse_autoencoder.train.sweep import (
    sweep,
)
from sparse_autoencoder.train.sweep_config import (
    ActivationResamplerHyperparameters,
    AutoencoderHyperparameters,
    Hyperparameters,
    LossHyperparameters,
    OptimizerHyperparameters,
    PipelineHyperparameters,
    SourceDataHyperparameters,
    SourceModelHyperparameters,
    SourceModelRuntimeHyperparameters,
    SweepConfig,
)
from sparse_autoencoder.train.utils.wandb_sweep_types import (
    Controller,
    ControllerType,
    Distribution,
    Goal,
    HyperbandStopping,
    HyperbandStoppingType,
    Impute,
    ImputeWhileRunning,
    Kind,
    Method,
    Metric,
    NestedParameter,
    Parameter,
)


__all__ = [
    "ActivationResampler",
    "ActivationResamplerHyperparameters",
    "AdamWithReset",
    "AutoencoderHyperparameters",
    "CapacityMetric",
    "Controller",
    "ControllerType",
    "Distribution",
    "Goal",
    "HyperbandStopping",
    "HyperbandStoppingType",
    "Hyperparameters",
    "Impute",
    "ImputeWhileRunning",
    "Kind",
    "L2ReconstructionLoss",
    "LearnedActivationsL1Loss",
    "LossHyperparameters",
    "LossReducer",
    "LossReductionType",
    "Method",
    "Metric",
    "NestedParameter",
    "OptimizerHyperparameters",
    "Parameter",
    "Pipeline",
    "PipelineHyperparameters",
    "PreTokenizedDataset",
    "SourceDataHyperparameters",
    "SourceModelHyperparameters",
    "SourceModelRuntimeHyperparameters",
    "SparseAutoencoder",
    "SparseAutoencoderConfig",
    "sweep",
    "SweepConfig",
    "TensorActivationStore",
    "TextDataset",
    "TrainBatchFeatureDensityMetric",
]
