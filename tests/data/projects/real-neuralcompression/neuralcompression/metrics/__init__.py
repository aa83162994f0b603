# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.


from ._calc_psnr import calc_psnr, calc_psnr_numpy
from ._dists import DeepImageStructureTextureSimilarity
from ._fid import FrechetInceptionDistance
from ._fid_swav import FrechetInceptionDistanceSwAV
from ._kid import KernelInceptionDistance
from ._msssim import MultiscaleStructuralSimilarity
from ._pickle_size import pickle_size_of
from ._update_patch_fid import update_patch_fid
