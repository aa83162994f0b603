# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from ._discriminator import Discriminator
from ._hific_autoencoder import HiFiCAutoencoder
from ._hyperprior_autoencoder import HyperpriorAutoencoderBase
from ._unet_discriminator import ConditionalUnetDiscriminator, UnetDiscriminator
from ._vqvae_projector import VqVaeProjector
from ._vqvae_xcit_autoencoder import VqVaeXCiTAutoencoder
from .deep_video_compression import DVC
