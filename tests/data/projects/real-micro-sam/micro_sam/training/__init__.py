"""Functionality for training Segment Anything.
"""

from .sam_trainer import SamTrainer, SamLogger
from .util import ConvertToSamInputs, get_trainable_sam_model, identity
from .joint_sam_trainer import JointSamTrainer, JointSamLogger
from .simple_sam_trainer import SimpleSamTrainer, MedSAMTrainer
from .semantic_sam_trainer import SemanticSamTrainer, SemanticMapsSamTrainer
from .training import (
    train_sam, train_sam_for_configuration, train_instance_segmentation, default_sam_loader, default_sam_dataset,
    export_instance_segmentation_model, CONFIGURATIONS,
)
