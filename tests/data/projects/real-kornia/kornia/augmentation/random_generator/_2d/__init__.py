# LICENSE HEADER MANAGED BY add-license-header
#
# Copyright 2018 Kornia Team
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#

from kornia.augmentation.random_generator._2d.affine import *
from kornia.augmentation.random_generator._2d.channel_dropout import *
from kornia.augmentation.random_generator._2d.color_jiggle import *
from kornia.augmentation.random_generator._2d.color_jitter import *
from kornia.augmentation.random_generator._2d.crop import *
from kornia.augmentation.random_generator._2d.cutmix import *
from kornia.augmentation.random_generator._2d.gaussian_blur import *
from kornia.augmentation.random_generator._2d.gaussian_illumination import *
from kornia.augmentation.random_generator._2d.jigsaw import *
from kornia.augmentation.random_generator._2d.jpeg import *
from kornia.augmentation.random_generator._2d.linear_illumination import *
from kornia.augmentation.random_generator._2d.mixup import *
from kornia.augmentation.random_generator._2d.mosaic import *
from kornia.augmentation.random_generator._2d.motion_blur import *
from kornia.augmentation.random_generator._2d.perspective import *
from kornia.augmentation.random_generator._2d.plain_uniform import *
from kornia.augmentation.random_generator._2d.planckian_jitter import *
from kornia.augmentation.random_generator._2d.posterize import *
from kornia.augmentation.random_generator._2d.probability import *
from kornia.augmentation.random_generator._2d.random_rain import *
from kornia.augmentation.random_generator._2d.rectangle_earase import *
from kornia.augmentation.random_generator._2d.resize import *
from kornia.augmentation.random_generator._2d.salt_pepper_noise import *
from kornia.augmentation.random_generator._2d.shear import *
from kornia.augmentation.random_generator._2d.translate import *
