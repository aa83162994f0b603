'''
Copyright 2021 D3M Team
Copyright (c) 2021 DATA Lab at Texas A&M University

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
'''

from d3m import container
from d3m.metadata import hyperparams
import imgaug.augmenters as iaa
import typing
from autovideo.utils import construct_primitive_metadata
from autovideo.base.augmentation_base import AugmentationPrimitiveBase

__all__ = ('MeanShiftBlurPrimitive',)

Inputs = container.DataFrame

class Hyperparams(hyperparams.Hyperparams):

    spatial_radius = hyperparams.Hyperparameter[typing.Union[float,tuple,list]](
        default=(5.0, 40.0),
        description='Spatial radius for pixels that are assumed to be similar.',
        semantic_types=['https://metadata.datadrivendiscovery.org/types/ControlParameter'],
    )

    color_radius = hyperparams.Hyperparameter[typing.Union[float,tuple,list]](
        default=(5.0, 40.0),
        description='Color radius for pixels that are assumed to be similar.',
        semantic_types=['https://metadata.datadrivendiscovery.org/types/ControlParameter'],
    )

    seed = hyperparams.Constant[int](
        default=0,
        description='Minimum workers to extract frames simultaneously',
        semantic_types=['https://metadata.datadrivendiscovery.org/types/ControlParameter'],
    )



class MeanShiftBlurPrimitive(AugmentationPrimitiveBase[Inputs, Hyperparams]):
    """
    A primitive which Apply a pyramidic mean shift filter to each image.
    """

    metadata = construct_primitive_metadata("augmentation", "blur_MeanShiftBlur")

    def _get_function(self):
        """
        set up function and parameter of functions
        """
        seed = self.hyperparams["seed"]
        spatial_radius = self.hyperparams['spatial_radius']
        color_radius = self.hyperparams['color_radius']
        return iaa.MeanShiftBlur(seed=seed,spatial_radius=spatial_radius,color_radius=color_radius)

