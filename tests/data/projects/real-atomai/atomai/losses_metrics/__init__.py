from .losses import dice_loss, focal_loss, MultiTaskLoss, select_loss
from .metrics import IoU
from .vi_losses import (joint_rvae_loss, joint_vae_loss, kld_discrete,
                        kld_normal, kld_rot, rvae_loss, vae_loss,
                        reconstruction_loss)

__all__ = ['focal_loss', 'dice_loss', 'select_loss', "vae_loss",
           "rvae_loss", "joint_vae_loss", "joint_rvae_loss", "IoU",
           "kld_normal", "kld_discrete", "kld_rot", "reconstruction_loss"]
