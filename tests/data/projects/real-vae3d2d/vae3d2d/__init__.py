from .model import CustomVAE, AttnParams
from .trainer import Trainer
from .dataloaders import RandomPatch3DDataset, AllPatch3DDataset, RandomVolumeDataset
from .feasibility import find_max_batch_size_power2, test_memory
from .evaluation import evaluate_model_on_full_volumes
from .image_utils import (safe_delete, 
                          prepare_for_wandb, 
                          volume_to_gif_frames, 
                          save_gif, 
                          save_mp4, 
                          save_side_by_side_slices, 
                          sliding_window_reconstruct, 
                          reconstruct_volume,
                          volume_to_gif_frames,
                          log_slice_montage)
from .eval_3d import eval_model_3D
from .train_3d import training_3D
from .logger_utils import setup_logger, LossMeter
from .loss_functions import Eagle_Loss_3D, gradient_loss_3d, focal_frequency_loss_3d
from . import model_utils


__all__ = ["CustomVAE", 
           "model_utils", 
           "AttnParams", 
           "Trainer", 
           "RandomPatch3DDataset", 
           "AllPatch3DDataset",
           "RandomVolumeDataset",
           "find_max_batch_size_power2",
           "sliding_window_reconstruct",
           "save_side_by_side_slices",
           "reconstruct_volume",
           "evaluate_model_on_full_volumes",
           "safe_delete",
           "prepare_for_wandb",
           "volume_to_gif_frames",
           "save_gif",
           "save_mp4",
           "eval_model_3D",
           "training_3D",
           "setup_logger",
           "Eagle_Loss_3D",
           "gradient_loss_3d",
           "test_memory",
           "focal_frequency_loss_3d",
           "log_slice_montage",
           "LossMeter"]

__version__ = "0.2.0"