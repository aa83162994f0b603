from __future__ import annotations
from warnings import warn
from typing import Callable
from pathlib import Path
import math
from numpy import ndarray
import torch
from torch.utils.data import Dataset
from torch import Tensor
from torchvision.datasets.folder import IMG_EXTENSIONS
from PIL import Image
from PIL.Image import Image as PIL_Image
from deepinv.utils.tensorlist import TensorList
from natsort import natsorted

CORE_TYPES = (
    Tensor,
    TensorList,
)


def check_dataset(dataset: Dataset, allow_non_tensor=True) -> None:
    """Check that a torch dataset is compatible with DeepInverse.

    For details of what is compatible, see :class:`ImageDataset`.

    :param torch.utils.data.Dataset dataset: torch dataset.
    :param bool allow_non_tensor: allow image types that are not tensors (i.e. numpy ndarrays and PIL Images). Default `False`, which
        is recommended so that the dataset is asserted to return tensors to be compatible with deepinv.
    """

    image_types = CORE_TYPES + ((PIL_Image, ndarray, float) if allow_non_tensor else ())

    if len(dataset) <= 0:
        raise RuntimeError(f"Dataset {dataset} should have length greater than zero.")

    batch = dataset.__getitem__(0)
    error_tuple = f"Dataset {dataset} should return either non-nan image `x`, or tuples of either length 2 of 3 of (x, y) or (x, params), or (x, y, params), where x, y are images (either Tensor, TensorList, or nan) and params is a dict"

    error_dict = f"Dataset {dataset} should return a dict with at least one of the keys 'x' or 'y', where x, y are images (either Tensor, TensorList). The dict can also contain a 'params' key, where params is a dict of parameters passed to a physics."

    def warn_core_types(x):
        if (
            isinstance(x, image_types)
            and not isinstance(x, CORE_TYPES)
            and not (isinstance(x, float) and math.isnan(x))
        ):
            warn(
                f"Dataset is returning samples of type {type(x)} that are not Tensors or TensorLists. These are not natively supported by DeepInverse. Pass in a transform to your dataset to cast them to Tensors before using the dataset with DeepInverse."
            )

    if isinstance(batch, image_types):
        warn_core_types(batch)
        if isinstance(batch, CORE_TYPES) and batch.isnan().all():
            raise RuntimeError(f"{error_tuple}, but returned all nan tensor `x`.")
        elif isinstance(batch, float) and math.isnan(batch):
            raise RuntimeError(f"{error_tuple}, but returned {batch}.")

        warn(
            "The tuple format for dataset outputs is deprecated and will be removed in a future version."
            "It is recommended to implement your dataset to return a dict with keys 'x', 'y', and 'params' instead of a tuple.",
            DeprecationWarning,
            stacklevel=2,
        )

    elif isinstance(batch, (list, tuple)) and len(batch) == 2:
        x, y_or_params = batch

        warn_core_types(x)
        if not isinstance(x, image_types):
            raise RuntimeError(
                f"{error_tuple}, but index 0 of returned tuple is type {type(x)}."
            )

        warn_core_types(y_or_params)
        if not isinstance(y_or_params, (*image_types, dict)):
            raise RuntimeError(
                f"{error_tuple}, but index 1 of returned tuple is type {type(y_or_params)}."
            )
        elif isinstance(y_or_params, dict) and any(
            not isinstance(k, str) for k in y_or_params
        ):
            raise RuntimeError(f"{error_tuple}, but params dict has non-string keys.")

        warn(
            "The tuple format for dataset outputs is deprecated and will be removed in a future version."
            "It is recommended to implement your dataset to return a dict with keys 'x', 'y', and 'params' instead of a tuple.",
            DeprecationWarning,
            stacklevel=2,
        )

    elif isinstance(batch, (list, tuple)) and len(batch) == 3:
        x, y, params = batch

        warn_core_types(x)
        if not isinstance(x, image_types):
            raise RuntimeError(
                f"{error_tuple}, but index 0 of returned tuple is type {type(x)}."
            )

        warn_core_types(y)
        if not isinstance(y, image_types):
            raise RuntimeError(
                f"{error_tuple}, but index 1 of returned tuple is type {type(y)}."
            )

        if not isinstance(params, dict):
            raise RuntimeError(
                f"{error_tuple}, but index 2 of returned tuple is not dict but of type {type(params)}."
            )
        elif any(not isinstance(k, str) for k in params):
            raise RuntimeError(f"{error_tuple}, but params dict has non-string keys.")

        warn(
            "The tuple format for dataset outputs is deprecated and will be removed in a future version."
            "It is recommended to implement your dataset to return a dict with keys 'x', 'y', and 'params' instead of a tuple.",
            DeprecationWarning,
            stacklevel=2,
        )

    elif isinstance(batch, dict):

        if "x" in batch:
            x = batch["x"]
            warn_core_types(x)
            if not isinstance(x, image_types):
                raise RuntimeError(
                    f"{error_dict}, but dict element with key 'x' is type {type(x)}."
                )

        if "y" in batch:
            y = batch["y"]
            warn_core_types(y)
            if not isinstance(y, image_types):
                raise RuntimeError(
                    f"{error_dict}, but dict element with key 'y' is type {type(y)}."
                )

        if "x" not in batch and "y" not in batch:
            raise RuntimeError(
                f"{error_dict}, batch is type dict but neither 'x' nor 'y' keys are present"
            )

        if "params" in batch:
            if not isinstance(batch["params"], dict):
                raise RuntimeError(
                    f"{error_dict}, but dict element with key 'params' is type {type(batch['params'])}."
                )
            if any(not isinstance(k, str) for k in batch["params"]):
                raise RuntimeError(
                    f"{error_dict}, but params dict has non-string keys."
                )

    elif isinstance(batch, (list, tuple)):
        raise RuntimeError(
            f"{error_tuple}, but returned list or tuple of length {len(batch)}."
        )

    else:
        raise RuntimeError(f"{error_dict}, but returned batch of type {type(batch)}.")


def batch_as_dict(
    batch: Tensor | tuple | list | dict,
) -> dict:
    """Packs a dataset batch (tuple or dict format) into a canonical dict with keys "x", "y", and "params"."""

    # If the batch is already a dict, return it as is
    if isinstance(batch, dict):
        return batch

    elif isinstance(batch, (TensorList, Tensor, PIL_Image, ndarray)):
        out = {"x": batch}

    elif isinstance(batch, (tuple, list)):
        if len(batch) == 1:
            out = {"x": batch[0]}

        elif len(batch) == 2:
            x, second = batch
            out = {}

            # NOTE: Kohler dataset can return a tuple of list of PIL_Image, hence accepts list as valid type
            if (
                isinstance(x, Tensor)
                and not torch.isnan(x).all()
                or isinstance(x, (TensorList, PIL_Image, ndarray, list))
            ):
                out = {"x": x}

            if isinstance(second, dict) and len(second) > 0:
                out["params"] = second
            else:
                out["y"] = second

        elif len(batch) == 3:
            x, y, params = batch
            out = {}

            # NOTE: Kohler dataset can return a tuple of list of PIL_Image, hence accepts list as valid type
            if (
                isinstance(x, Tensor)
                and not torch.isnan(x).all()
                or isinstance(x, (TensorList, PIL_Image, ndarray, list))
            ):
                out = {"x": x}

            out["y"] = y
            if len(params) > 0:
                out["params"] = params

        else:
            raise RuntimeError(
                f"Batch should be a tensor, or tuple/list of length 1 to 3, or dict, but got tuple/list of length {len(batch)}."
            )

    return out


class ImageDataset(Dataset):
    """
    Base class for imaging datasets in DeepInverse.

    All datasets used with DeepInverse should inherit from this class.

    .. warning::
        The tuple format is deprecated and will be removed in a future version. It is recommended to use the dict format instead.

    We provide the function :func:`check_dataset` to automatically check that `__getitem__` returns the correct format. We support two distinct formats for dataset outputs: a tuple format and a dict format. The dict format is recommended for better readability and flexibility, while the tuple format is provided for backward compatibility.

    The tuple format is as follows:

    * `x` i.e a dataset that returns only ground truth;
    * `(x, y)` i.e. a dataset that returns pairs of ground truth and measurement. `x` can be equal to `torch.nan` if your dataset is ground-truth-free.
    * `(x, params)` i.e. a dataset of ground truth and dict of :ref:`physics parameters <physics_generators>`. Useful for training with online measurements.
    * `(x, y, params)` i.e. a dataset that returns ground truth, measurements and dict of physics params.

    .. note::

        When datasets are only composed of measurements `(y)` or `(y, params)` the tuple format returns `(torch.nan, y)` or `(torch.nan, y, params)`

    The dict format is more flexible and allows for arbitrary keys. The only requirement is that the dict contains at least one of the keys `"x"` or `"y"`. Parameters used to update the physics should be returned in a nested dict under the key `"params"`. An example of a dataset returning a dict is as follows:

    * `{"x": x, "y": y, "params": {"filter": filter}}` i.e. a dataset that returns ground truth, measurements and dict of physics params.

    This check is also available for datasets using the method :meth:`ImageDataset.check_dataset`.

    Datasets should ideally return :class:`torch.Tensor` or :class:`deepinv.utils.TensorList` so that they are batchable and can be used with `deepinv`.

    If using DeepInverse with your own custom dataset, you should inherit from this class and use :func:`check_dataset` to check your dataset is compatible.
    """

    def __init__(self, use_dict_output: bool = False):
        self.use_dict_output = use_dict_output

        if not self.use_dict_output:
            warn(
                "The tuple format for dataset outputs is deprecated and will be removed in a future version."
                "It is recommended to set `use_dict_output=True` for better readability and flexibility in returned outputs."
                "The default is currently `False` for backward compatibility, but will be switched to `True` in a future version.",
                DeprecationWarning,
                stacklevel=2,
            )

    def check_dataset(self) -> None:
        """Check dataset returns correct format of images or image tuples."""
        check_dataset(self, allow_non_tensor=True)

    def __len__(self):
        raise NotImplementedError()

    def __getitem__(self, idx: int):
        raise NotImplementedError()


class TensorDataset(ImageDataset):
    r"""
    Dataset wrapping data explicitly passed as tensors.

    This dataset can be used to return ground truth `x`, ground truth and measurements `(x, y)`, or measurements only `(y)`.
    All input tensors must be of shape `(N, ...)` and of same `N` where N is the number of samples and ... represents the data dimensions.

    .. tip::

        Alternatively, you can use `use_dict_output=True` to return a dict with at least keys `"x"` or `"y"`, and `"params"` instead of a tuple. This is recommended for better readability and flexibility in returned outputs.

    Optionally, `params` are returned too.

    :param torch.Tensor, None x: optional input ground truth tensor `x`
    :param torch.Tensor, None y: optional input measurement tensor `y`
    :param dict[str, torch.Tensor], None params: optional input physics parameters `params` of format `{"str": Tensor}`
    :param bool use_dict_output: whether to return output as dict with keys `"x"`, `"y"`, `"params"``  instead of tuple. Defaults to `False` for backward compatibility.

    |sep|

    Examples:

    Construct a dataset from a single measurement only:

    >>> import torch
    >>> from deepinv.datasets import TensorDataset
    >>> y = torch.rand(1, 3, 8, 8) # B,C,H,W
    >>> dataset = TensorDataset(y=y)
    >>> x, y = dataset[0]
    >>> x
    nan
    >>> y.shape
    torch.Size([3, 8, 8])

    Construct a dataset from a ground truth batch:

    >>> x = torch.rand(4, 3, 8, 8)  # 4 samples of 3-channel 8x8 images
    >>> dataset = TensorDataset(x=x)
    >>> dataset[0].shape
    torch.Size([3, 8, 8])


    """

    def __init__(
        self,
        *,
        x: Tensor | None = None,
        y: Tensor | None = None,
        params: dict[str, Tensor] | None = None,
        use_dict_output: bool = False,  # For backward compatibility
    ):
        super().__init__(use_dict_output=use_dict_output)

        if (
            isinstance(x, CORE_TYPES)
            and isinstance(y, CORE_TYPES)
            and x.size(0) != y.size(0)
        ):
            raise ValueError(
                f"x must be same size as y in dimension 0, but got {x.size(0)} vs {y.size(0)}"
            )
        elif self._is_none_or_nan(x) and self._is_none_or_nan(y):
            raise ValueError("At least one of x or y must be not None or not nan.")
        elif not self._is_none_or_nan(x) and not isinstance(x, CORE_TYPES):
            raise ValueError("x must be Tensor or TensorList.")
        elif not self._is_none_or_nan(y) and not isinstance(y, CORE_TYPES):
            raise ValueError("y must be Tensor or TensorList.")

        self._x = x
        self._y = y
        self._params = params

    @property
    def x(self):
        return self._x

    @property
    def y(self):
        return self._y

    @property
    def params(self):
        return self._params

    @staticmethod
    def _is_none_or_nan(x) -> bool:
        """
        Check if x is None or is nan
        """

        return x is None or (isinstance(x, float) and math.isnan(x))

    def __len__(self) -> int:
        return self.x.size(0) if not self._is_none_or_nan(self.x) else self.y.size(0)

    def __getitem__(self, idx: int):
        if self.use_dict_output:
            out = {}

            if not self._is_none_or_nan(self.x):
                out["x"] = self.x[idx]
            if not self._is_none_or_nan(self.y):
                out["y"] = self.y[idx]
            if not self._is_none_or_nan(self.params):
                out["params"] = {k: v[idx] for (k, v) in self.params.items()}

            return out

        if self._is_none_or_nan(self.y):
            if self._is_none_or_nan(self.params):
                return self.x[idx]
            else:
                return self.x[idx], {k: v[idx] for (k, v) in self.params.items()}

        x = torch.nan if self._is_none_or_nan(self.x) else self.x[idx]

        if self._is_none_or_nan(self.params):
            return x, self.y[idx]
        else:
            return x, self.y[idx], {k: v[idx] for (k, v) in self.params.items()}


class ImageFolder(ImageDataset):
    """Dataset loading images from files.

    By default, the images are loaded from image files (png, jpg etc.) located in `root`.
    For more flexibility, set `x_path` or `y_path` to load ground truth `x` and/or measurements `y` from specific file patterns.

    .. tip::

        To load data from subfolders, use globs such as `x_path = "GT/**/*.png", y_path = "meas/**/*.png"`.

    .. tip::

        Set `y_path` only to load measurements following the file pattern. The measurement-only data will be returned as a tuple `(torch.nan, y)`.

    .. tip::

        Use `use_dict_output=True` to return a dict with keys `"x"`, `"y"`, and `"params"` instead of a tuple. This is recommended for better readability and flexibility in returned outputs.

    :param str, pathlib.Path root: dataset root directory.
    :param str, None x_path: file glob pattern for ground truth data, defaults to None.
    :param str, None y_path: file glob pattern for measurement data, defaults to None.
    :param Callable loader: optional function that takes filename string and loads file. If `None`, defaults to `PIL.Image.open`.
    :param Callable estimate_params: optional function that takes tensors `x,y` and returns dict of `params`. Advanced usage only.
    :param Callable, tuple transform: optional callable transform. If `tuple` or `list` of length 2, `x` is transformed with first transform and `y` with second.
    :param bool use_dict_output: whether to return output as dict with keys "x", "y", "params" instead of tuple. Default `False` for backward compatibility.

    |sep|

    Examples:

    Using default loading from root folder with image files. Folder structure:

    ::

        root
        ├── img1.png
        └── img2.png

        dataset = ImageFolder(root)
        dataset[0]
        tensor(...)  # Returns x only

    Loading paired tensors from nested folders using custom glob and loader. Folder structure:

    ::

        data/
        ├── GT/
        │   ├── scene1/
        │   │   └── x0.pt
        │   └── scene2/
        │       └── x1.pt
        └── meas/
            ├── scene1/
            │   └── y0.pt
            └── scene2/
                └── y1.pt

        dataset = ImageFolder(
            root,
            x_path="GT/**/*.pt",
            y_path="meas/**/*.pt",
            loader=torch.load
        )
        dataset[0]
        (tensor(...), tensor(...))  # Returns (x, y) pair


    Loading unpaired measurements only. Folder structure:

    ::

        data/
        └── meas/
            ├── meas0.png
            └── meas1.png

        dataset = ImageFolder(
            "data/",
            y_path="meas/*.png"
        )
        dataset[0]
        (torch.nan, tensor(...))  # Returns unpaired y

    """

    def __init__(
        self,
        root: str | Path,
        x_path: str | None = None,
        y_path: str | None = None,
        loader: Callable[[str | Path], Tensor] = None,
        estimate_params: Callable[[Tensor, Tensor], dict] | None = None,
        transform: Callable | tuple[Callable, Callable] | None = None,
        use_dict_output: bool = False,  # For backward compatibility
    ):
        super().__init__(use_dict_output=use_dict_output)
        self.root = Path(root)

        self.x_paths = None
        self.y_paths = None

        if x_path is not None:
            self.x_paths = natsorted(self.root.glob(x_path))

        if y_path is not None:
            self.y_paths = natsorted(self.root.glob(y_path))

        if (
            self.x_paths is not None
            and self.y_paths is not None
            and len(self.x_paths) != len(self.y_paths)
        ):
            raise ValueError("Mismatch in number of GT and LR images.")
        elif self.x_paths is None and self.y_paths is None:
            self.x_paths = sum(
                (list(self.root.glob(f"**/*{ext}")) for ext in IMG_EXTENSIONS), []
            )

        if transform is None:
            self.transform_x = self.transform_y = lambda x: x
        elif isinstance(transform, (list, tuple)):
            if len(transform) != 2:
                raise ValueError(
                    "If transform is iterable, it should be length 2 (for x and y)."
                )
            self.transform_x, self.transform_y = transform
        else:
            self.transform_x = self.transform_y = transform

        self.estimate_params = estimate_params
        self.loader = (
            loader if loader is not None else lambda fn: Image.open(fn).convert("RGB")
        )

    def __len__(self):
        return len(self.x_paths) if self.x_paths is not None else len(self.y_paths)

    def __getitem__(self, idx):
        # Load x and y
        x = torch.nan if self.x_paths is None else self.loader(self.x_paths[idx])
        y = None if self.y_paths is None else self.loader(self.y_paths[idx])

        state = torch.get_rng_state()

        if self.x_paths is not None and self.transform_x is not None:
            x = self.transform_x(x)

        if y is not None and self.transform_y is not None:
            torch.set_rng_state(state)
            y = self.transform_y(y)

        params = self.estimate_params(x, y) if self.estimate_params is not None else {}

        if self.use_dict_output:
            out = {}

            if x is not torch.nan:
                out["x"] = x
            if y is not None:
                out["y"] = y

            if len(params) > 0:
                out["params"] = params

            return out

        else:
            out = (x,)

            if y is not None:
                out += (y,)

            if params:
                out += (params,)

            return out[0] if len(out) == 1 else out
