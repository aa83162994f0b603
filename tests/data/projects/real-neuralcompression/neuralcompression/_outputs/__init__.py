# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from ._discriminator_output import DiscriminatorOutput
from ._hyperprior_output import HyperpriorCompressedOutput, HyperpriorOutput
from ._vqvae_autoencoder_output import VqVaeAutoencoderOutput
