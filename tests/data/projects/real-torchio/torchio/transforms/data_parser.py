from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Generic
from typing import TypeAlias
from typing import TypeVar
from typing import cast

import nibabel as nib
import numpy as np
import SimpleITK as sitk
import torch

from ..data.image import Image
from ..data.image import LabelMap
from ..data.image import ScalarImage
from ..data.io import nib_to_sitk
from ..data.io import sitk_to_nib
from ..data.subject import Subject
from ..types import TypeData
from ..types import TypeImageData

TypeTransformInput: TypeAlias = (
    Subject
    | Image
    | torch.Tensor
    | np.ndarray
    | sitk.Image
    | dict[str, object]
    | nib.Nifti1Image
)
ParserInput = TypeVar('ParserInput', bound=TypeTransformInput)


class DataParser(Generic[ParserInput]):
    def __init__(
        self,
        data: ParserInput,
        keys: Sequence[str] | None = None,
        label_keys: Sequence[str] | None = None,
    ):
        self.data = data
        self.keys = keys
        self.label_keys = label_keys
        self.default_image_name = 'default_image_name'
        self.is_tensor = False
        self.is_array = False
        self.is_dict = False
        self.is_image = False
        self.is_sitk = False
        self.is_nib = False

    def get_subject(self) -> Subject:
        if isinstance(self.data, nib.Nifti1Image):
            tensor = self.data.get_fdata(dtype=np.float32)
            if tensor.ndim == 3:
                tensor = tensor[np.newaxis]
            elif tensor.ndim == 5:
                tensor = tensor.transpose(3, 4, 0, 1, 2)
                # Assume a unique timepoint
                tensor = tensor[0]
            data = ScalarImage(tensor=tensor, affine=self.data.affine)
            subject = self._get_subject_from_image(data)
            self.is_nib = True
        elif isinstance(self.data, (np.ndarray, torch.Tensor)):
            subject = self._parse_tensor(self.data)
            self.is_array = isinstance(self.data, np.ndarray)
            self.is_tensor = True
        elif isinstance(self.data, Image):
            subject = self._get_subject_from_image(self.data)
            self.is_image = True
        elif isinstance(self.data, Subject):
            subject = self.data
        elif isinstance(self.data, sitk.Image):
            subject = self._get_subject_from_sitk_image(self.data)
            self.is_sitk = True
        elif isinstance(self.data, dict):  # e.g. Eisen or MONAI dicts
            if self.keys is None:
                message = (
                    'If the input is a dictionary, a value for "include" must'
                    ' be specified when instantiating the transform. See the'
                    ' docs for Transform:'
                    ' https://docs.torchio.org/transforms/transforms.html#torchio.transforms.Transform'
                )
                raise RuntimeError(message)
            data_dict = dict(self.data)
            subject = self._get_subject_from_dict(
                data_dict,
                self.keys,
                self.label_keys,
            )
            self.is_dict = True
        else:
            raise ValueError(f'Input type not recognized: {type(self.data)}')
        assert isinstance(subject, Subject)
        return subject

    def get_output(self, transformed: Subject) -> ParserInput:
        output: object
        if self.is_tensor or self.is_sitk:
            image = transformed.get_image(self.default_image_name)
            output = image.data
            if self.is_array:
                output = output.numpy()
            elif self.is_sitk:
                output = nib_to_sitk(image.data, image.affine)
        elif self.is_image:
            output = transformed.get_image(self.default_image_name)
        elif self.is_dict:
            output_dict: dict[str, object] = dict(transformed)
            for key, value in output_dict.items():
                if isinstance(value, Image):
                    output_dict[key] = value.data
            output = output_dict
        elif self.is_nib:
            image = transformed.get_image(self.default_image_name)
            data = image.data
            output = nib.Nifti1Image(data[0].numpy(), image.affine)
        else:
            output = transformed
        return cast(ParserInput, output)

    def _parse_tensor(self, data: TypeData) -> Subject:
        if data.ndim != 4:
            message = (
                'The input must be a 4D tensor with dimensions'
                f' (channels, x, y, z) but it has shape {tuple(data.shape)}.'
                ' Tips: if it is a volume, please add the channels dimension;'
                ' if it is 2D, also add a dimension of size 1 for the z axis'
            )
            raise ValueError(message)
        return self._get_subject_from_tensor(data)

    def _get_subject_from_tensor(self, tensor: TypeImageData) -> Subject:
        image = ScalarImage(tensor=tensor)
        return self._get_subject_from_image(image)

    def _get_subject_from_image(self, image: Image) -> Subject:
        subject = Subject({self.default_image_name: image})
        return subject

    @staticmethod
    def _get_subject_from_dict(
        data: Mapping[str, object],
        image_keys: Sequence[str],
        label_keys: Sequence[str] | None = None,
    ) -> Subject:
        subject_dict: dict[str, object] = {}
        label_keys = [] if label_keys is None else label_keys
        for key, value in data.items():
            if key in image_keys:
                if not isinstance(value, (np.ndarray, torch.Tensor)):
                    message = (
                        'Input dictionary values selected as images must be'
                        f' tensors or arrays, not {type(value)}'
                    )
                    raise TypeError(message)
                class_ = LabelMap if key in label_keys else ScalarImage
                value = class_(tensor=value)
            subject_dict[key] = value
        return Subject(subject_dict)

    def _get_subject_from_sitk_image(self, image: sitk.Image) -> Subject:
        tensor, affine = sitk_to_nib(image)
        scalar_image = ScalarImage(tensor=tensor, affine=affine)
        return self._get_subject_from_image(scalar_image)
