# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from ._clic_2020_image import CLIC2020Image
from ._clic_2020_video import CLIC2020Video
from ._div2k_dataset import DIV2KDataset
from ._kodak import Kodak
from ._openimages_v6 import OpenImagesV6
from ._vimeo_90k_septuplet import Vimeo90kSeptuplet
