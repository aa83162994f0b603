from __future__ import annotations
from typing import TYPE_CHECKING, Callable, Any

from tqdm import tqdm
import os
from warnings import warn
import re

import torch
import numpy as np

from torch import Tensor
from torch.utils.data import DataLoader, Subset, Dataset
from deepinv.utils.tensorlist import TensorList
from deepinv.physics import StackedPhysics
from deepinv.datasets.base import ImageDataset, batch_as_dict
from deepinv.utils.decorators import _deprecate_attribute
from deepinv.utils.rng import _fork_rng
from deepinv.transform import Transform

if TYPE_CHECKING:
    from deepinv.physics import Physics
    from deepinv.physics.generator import PhysicsGenerator


class HDF5Dataset(ImageDataset):
    r"""
    DeepInverse HDF5 dataset

    DeepInverse features its own file format for imaging datasets designed as a
    subset of the `HDF5 file format <https://www.hdfgroup.org/solutions/hdf5/>`_.
    A dataset in this format is typically obtained from a base dataset of ground-truth
    images and measured through a forward operator using the function :func:`deepinv.datasets.generate_dataset`.
    This class features the code to load them in memory.

    |sep|

    :Basics:

    The file containing the dataset is opened in the constructor and remains
    opened until the method :meth:`close` is called.

    :param str path: Path to the HDF5 file containing the dataset.

    |sep|

    :Splits:

    The dataset is structured in splits that are either freely named or
    understood specifically as training and testing splits. By convention,
    the training split is named ``train`` and the testing split ``test``.
    In both cases, the parameter ``split`` can be used to select one of
    the splits available in the dataset. For the specific case of training
    and testing splits, they can be loaded in using the boolean parameter
    ``train``. If ``train=True``, the training split is loaded, otherwise
    the testing split is loaded.

    By default, if neither ``split`` nor ``train`` is provided, it attempts to
    load the training split. We don't recommend relying on this behaviour which
    is likely to change in future versions of the library.

    .. warning::

        If both ``split`` and ``train`` are provided, then ``split`` takes
        precedence and ``train`` is ignored. We recommend that you only
        specify one of the two parameters to avoid errors.

    .. note::

        A single instance of the class holds a single split of the dataset. If
        you wish to load multiple splits, you must instantiate the class once
        per split. See for instance :ref:`sphx_glr_auto_examples_models_demo_training.py`.

    :param str, None split: The name of the split to load, for instance ``"train"``, ``"test"`` or `"val"``. It can be left unspecified if ``train`` is used instead.
    :param bool train: If ``split`` is left unspecified, uses ``"train"`` as the split name if set to ``True`` and ``"test"`` otherwise. Note that if ``split`` is specified, this parameter is ignored with a warning.

    |sep|

    :Entries:

    HDF5 datasets adhere to our `conventions for datasets <https://deepinv.org/user_guide/training/datasets.html>`_.
    In particular, their entries are either pairs of ground truth images and measurements ``(x, y)`` or triplets with additional
    physics parameters ``(x, y, params)``. It is possible that the dataset does not contain ground truth data and in this case
    the ground truth is replaced by a scalar NaN tensor.

    Physics parameters represent additional information about the measurement
    process. For instance the mask for inpainting or the blur kernel for
    deblurring. HDF5 datasets can contain the physics parameters used to
    generate each set of measurements and in that case, they are returned with
    each entry as a dictionary as long as the parameter
    ``load_physics_generator_params`` is set to ``True``. Note that if the
    parameter is set and the dataset does not contain any physics parameter, an
    empty dictionary is returned nonetheless.

    Measurements intended to be used with :class:`deepinv.physics.StackedPhysics` are stored across multiple members of
    the HDF5 file, one per operator. In that case, member names follow the format ``y{i}_{split_name}`` where ``i``
    denotes the stack index (starting at 0) and they are loaded as a :class:`deepinv.utils.tensorlist.TensorList`.

    .. note::

        Physics parameters are identified using a fallback logic. Namely, every member with a name of the form ``{prefix}_{split_name}``
        that is neither interpreted as containing ground truths or measurements (including stacked measurements) defaults
        to being interpreted as containing physics parameter, with ``prefix`` denoting the parameter name.
        In particular, the joint presence of physics parameters and stacked measurements is generally supported as long
        as custom physics parameter names cannot be misinterpreted as ground truth or measurements names, for instance
        ``x``, ``y``, and ``y0`` are unsupported parameter names.

    .. note::

        HDF5 datasets always contain measurements even though our conventions permit datasets
        with only ground truths (with or without physics parameters).

    :param bool load_physics_generator_params: Return the physics parameters with each entry. If no physics parameter is featured in the dataset, an empty dictionary is returned nonetheless.

    |sep|

    :Pre-processing:

    The data loaded in from the disk is not necessarily returned as is. The
    pre-processing pipeline contains two steps. First, the real and complex
    numbers are cast to user-provided dtypes using the parameters ``dtype``
    and ``complex_dtype``. Then, an optional transform provided by the user
    through the parameter ``transform`` is applied to the ground truth
    image.

    .. note::

        The user-provided transformation is only applied to the ground truth
        image. It does not affect the measurements or the physics parameters.

    :param torch.dtype, str dtype: The dtype for real-valued numbers, by default ``torch.float``.
    :param torch.dtype, str complex_dtype: The dtype for complex-valued numbers, by default ``torch.cfloat``.
    :param Transform, Callable, None transform: An optional transformation applied to the ground truth.
    :param bool use_dict_output: whether to return output as dict with keys "x", "y", "params" instead of tuple (default `False`).
    """

    def __init__(
        self,
        path: str,
        train: bool | None = None,
        split: str | None = None,
        transform: Transform | Callable | None = None,
        load_physics_generator_params: bool = False,
        dtype: torch.dtype | str = torch.float,
        complex_dtype: torch.dtype | str = torch.cfloat,
        use_dict_output: bool = False,
    ):
        import h5py

        super().__init__(use_dict_output=use_dict_output)

        f = h5py.File(path, "r")

        # Process ground truths
        x = None

        # Process measurements
        attrs: dict = f.attrs
        marked_stacked = "stacked" in attrs
        stacked = attrs.get("stacked", 0)
        if marked_stacked:
            y = [None] * stacked
        else:
            y = None

        # Process forward operator parameters
        params = {} if load_physics_generator_params else None

        # Register members in the HDF5 file as ground truths, parts of stacked
        # measurements or regular measurements and forward operator parameters
        if split is not None:
            if train is not None:
                warn(
                    "The parameters 'split' and 'train' are both provided. The parameter 'split' takes precedence and 'train' is ignored.",
                    UserWarning,
                    stacklevel=1,
                )
            split_name = split
        else:
            if train is None:
                warn(
                    "Neither 'split' nor 'train' parameters are provided. Defaulting to loading the 'train' split. This behaviour is likely to change in future versions of the library.",
                    UserWarning,
                    stacklevel=1,
                )
                train = True
            split_name = "train" if train else "test"
        split_suffix = f"_{split_name}"

        # We make sure that the split contains as many xs as ys and params.
        split_size = None

        def update_split_size(size: int, *, field_name: str) -> None:
            nonlocal split_size
            if split_size is None:
                split_size = size
            else:
                if split_size != size:
                    warn(
                        f"Found different sizes for split {split_name} between fields, {split_size} for previous fields and {size} for field {field_name}. Using the minimum size. There is most likely an error with the dataset.",
                        UserWarning,
                        stacklevel=1,
                    )
                # Using min we can still load the data, only losing some samples.
                split_size = min(split_size, size)

        for member_name, member in f.items():
            # Only register members corresponding to the selected split
            if member_name.endswith(split_suffix):
                # Get the attribute name by stripping the split suffix
                attr_name = member_name[: -len(split_suffix)]
                # Register the ground truths
                if attr_name == "x":
                    x = member
                    update_split_size(len(x), field_name="x")
                # Register the measurements
                elif attr_name == "y":
                    if not marked_stacked:
                        y = member
                        update_split_size(len(y), field_name="y")
                    else:
                        warn(
                            f"Dataset marked as stacked but found unstacked member {member_name}. There is probably an error with the dataset.",
                            UserWarning,
                            stacklevel=2,
                        )
                # Register parts of the stacked measurements and forward operator parameters
                else:
                    # Other members are understood as parameters except if they are stacked measurements
                    registered_as_measurements = False

                    # Register part of the stacked measurements
                    # Example target values for member_name: "y0_train", "y1_train", ...
                    if attr_name.startswith("y"):
                        stacking_needle = attr_name[1:]
                        # If needle is the canonical base 10 representation of a non-negative integer
                        if (
                            re.fullmatch(r"0|[1-9]\d*", stacking_needle, re.ASCII)
                            is not None
                        ):
                            stacking_index = int(stacking_needle)
                            # If the stacking index is in the target range
                            if stacking_index in range(stacked):
                                if marked_stacked:
                                    registered_as_measurements = True
                                    y[stacking_index] = member
                                    update_split_size(
                                        len(member),
                                        field_name=f"y{stacking_index}",
                                    )
                                else:
                                    warn(
                                        f"Dataset not marked as stacked but found stacked member {member_name}. There is probably an error with the dataset.",
                                        UserWarning,
                                        stacklevel=2,
                                    )
                            else:
                                warn(
                                    f"Found stacked measurement member {member_name} with stacking index {stacking_index} outside of the expected range [0, {stacked}). There is probably an error with the dataset.",
                                    UserWarning,
                                    stacklevel=2,
                                )

                    # Register the forward operator parameters
                    if params is not None and not registered_as_measurements:
                        params[attr_name] = member
                        update_split_size(len(member), field_name=f"params.{attr_name}")

        # Process ground truths
        if x is not None:
            self.x = x

        # Process measurements
        if marked_stacked:
            if None in y:
                raise ValueError(
                    f"Dataset marked as stacked with {stacked} parts but some parts are missing."
                )
        self.y = y

        # Process forward operator parameters
        if params is not None:
            self.params = params

        self._split_size = split_size

        self.hd5 = f
        self.transform = transform
        self.cast = lambda x: x.type(complex_dtype if x.is_complex() else dtype)

        # The attribute load_physics_generator_params is redundant with the attribute params.
        # Indeed, it is true if and only if the attribute params exists.
        _deprecate_attribute(
            self,
            attr_name="load_physics_generator_params",
            attr_underscore_name="_load_physics_generator_params",
            attr_initial_value=hasattr(self, "params"),
            deprecation_message="The attribute 'load_physics_generator_params' is deprecated and will be removed in future versions. Use the attribute 'params' instead.",
        )

        # The attribute stacked is redundant with the attribute y. It is the
        # number of elements in y if y is a list, otherwise y is a h5py.Dataset
        # and it is 0.
        _deprecate_attribute(
            self,
            attr_name="stacked",
            attr_underscore_name="_stacked",
            attr_initial_value=0 if isinstance(self.y, h5py.Dataset) else len(self.y),
            deprecation_message="The attribute 'stacked' is deprecated and will be removed in future versions. Use the attribute 'y' instead.",
        )

        # The attribute data_info is used nowhere.
        _deprecate_attribute(
            self,
            attr_name="data_info",
            attr_underscore_name="_data_info",
            attr_initial_value=[],
            deprecation_message="The attribute 'data_info' is deprecated and will be removed in future versions.",
        )

        # The attribute data_cache is used nowhere.
        _deprecate_attribute(
            self,
            attr_name="data_cache",
            attr_underscore_name="_data_cache",
            attr_initial_value={},
            deprecation_message="The attribute 'data_cache' is deprecated and will be removed in future versions.",
        )

    def __getitem__(self, index: int) -> tuple:
        r"""Get an entry in the dataset.

        Return the measurement and signal pair ``(x, y)`` at the given index, in
        the selected split. If forward operator parameters are available, it
        returns ``(x, y, params)`` where ``params`` is a dict of parameters.

        If ``self.use_dict_output=True``, the output is a dict with keys "x", "y", and "params" instead of a tuple. If the ground truth is not present in the dataset, the key "x" is omitted from the dict.

        The method returns a scalar NaN tensor as the ground truth when none is
        present in the dataset, in accordance with the conventions of the
        library (see :ref:`datasets user guide <datasets>`).

        :param int index: Index of the pair to return.
        """
        import h5py

        if self.hd5 is None:  # pragma: no cover
            raise ValueError(
                "Dataset has been closed. Redefine the dataset to continue."
            )

        state = None
        supervised = hasattr(self, "x")

        # Compute x
        if supervised:
            x = self.x[index]
            x = torch.from_numpy(x)
            x = self.cast(x)
        else:
            x = torch.tensor(torch.nan, dtype=torch.float32, device=torch.device("cpu"))
            x = self.cast(x)

        # Compute y
        y = self.y
        if isinstance(y, h5py.Dataset):
            y = self.y[index]
            y = torch.from_numpy(y)
            y = self.cast(y)
        else:
            y = TensorList([self.cast(torch.from_numpy(yk[index])) for yk in y])

        # Apply transform only in supervised mode; sync RNG across x and y
        if supervised and self.transform is not None:
            generators = (
                [self.transform.rng] if isinstance(self.transform, Transform) else None
            )

            with _fork_rng(torch_generators=generators, torch_global=True):
                x = self.transform(x)

            y = self.transform(y)

        # Compute params
        if hasattr(self, "params"):
            params = {
                k: self.cast(
                    torch.from_numpy(param[index])
                    if param.ndim > 1
                    else torch.tensor(param[index])
                )
                for (k, param) in self.params.items()
            }
        else:
            params = None

        if self.use_dict_output:
            out = {"x": x, "y": y} if not torch.isnan(x).all() else {"y": y}
            if params is not None and len(params) > 0:
                out["params"] = params

        else:
            out = (x, y, params) if params is not None else (x, y)

        return out

    def __len__(self) -> int:
        r"""
        Returns the size of the dataset.

        """
        return self._split_size

    def close(self) -> None:
        """
        Closes the HDF5 dataset. Use when you are finished with the dataset.
        """
        if hasattr(self, "hd5") and self.hd5:
            self.hd5.close()
            self.hd5 = None

    @property
    def unsupervised(self) -> bool:
        """Test if the split is unsupervised (i.e. contains no ground truths)."""
        warn(
            "The attribute 'unsupervised' is deprecated and will be removed in future versions. Please check the dataset entries directly instead.",
            DeprecationWarning,
            stacklevel=1,
        )
        return not hasattr(self, "x")


def collate(dataset: Dataset) -> Callable[[list[Any]], Tensor] | None:
    """
    Infer an appropriate `collate_fn` for a DataLoader based on the type returned by the dataset.

    Because `dataset` may return arbitrary Python objects, and we have no control
    over its internals, this helper inspects the first sample and constructs a
    custom `collate_fn` when necessary (for now, this is only implemented for PIL Images)

    Behaviour
    ---------
    - If the dataset returns `torch.Tensor` or `np.ndarray` (or lists/tuples
      whose first element is one of these), `None` is returned. The default
      DataLoader collate logic already handles batching these types.

    - If the dataset returns a PIL Image (or a list/tuple whose first element
      is a PIL Image),  a custom collate function is returned that:
        * converts each image to a float32 tensor in [0, 1] with shape
          `(C, H, W)` using `torchvision.transforms.ToTensor`,
        * stacks all samples into a batched tensor of shape (N, C, H, W), and
        * raises an error if any images differ in shape.

    - Any other return type leads to a `RuntimeError`.

    Only the first sample (`dataset[0]`) is inspected, so the dataset is
    assumed to be type-consistent.
    """
    example_output = dataset[0]
    if isinstance(example_output, (list, tuple)):
        example_output = example_output[0]
    elif isinstance(example_output, dict):
        example_output = (
            example_output["x"] if "x" in example_output else example_output["y"]
        )

    if isinstance(example_output, (Tensor, np.ndarray)):
        return None
    else:
        from PIL import Image

        if isinstance(example_output, Image.Image):

            def collate_pillow(
                batch: list[Image.Image | list[Image.Image] | dict[str, Image.Image]],
            ) -> Tensor:
                tensors = []
                for sample in batch:
                    if isinstance(sample, Image.Image):
                        img = sample
                    elif isinstance(sample, (list, tuple)):
                        # only keeping the first element is same behavior as when dataset returns list of tensors!
                        img = sample[0]
                    elif isinstance(sample, dict):
                        # Assuming the dictionary has a key for the image
                        img = sample.get("x", sample.get("y"))
                    else:  # pragma: no cover
                        raise ValueError(
                            f"generate_dataset expects datasets to consistently return a (list of) Tensor, Array, or PIL images. Detected use of PIL in a sample, but received a new item of type {type(sample)}."
                        )
                    arr = np.array(img, dtype=np.float32)
                    if arr.ndim == 2:
                        arr = arr[:, :, None]
                    t = torch.from_numpy(arr.transpose(2, 0, 1))
                    t.div_(255.0)
                    if tensors and t.shape != tensors[-1].shape:
                        raise RuntimeError(
                            f"generate_dataset expects dataset to return elements of same shape, but received at two different shapes: {t.shape} and {tensors[-1].shape}. Please add a crop/pad or other shape handling to your dataset."
                        )
                    tensors.append(t)
                return torch.stack(tensors, dim=0)

            return collate_pillow
        else:  # pragma: no cover
            raise RuntimeError(
                f"Dataset must return either numpy array, torch tensor, or PIL image, but got type {type(example_output)}"
            )


def generate_dataset(
    train_dataset: Dataset,
    physics: Physics | list[Physics],
    save_dir: str,
    test_dataset: Dataset = None,
    val_dataset: Dataset = None,
    dataset_filename: str = "dinv_dataset",
    overwrite_existing: bool = True,
    train_datapoints: int = None,
    test_datapoints: int = None,
    val_datapoints: int = None,
    physics_generator: PhysicsGenerator = None,
    save_physics_generator_params: bool = True,
    batch_size: int = 4,
    num_workers: int = 0,
    supervised: bool = True,
    verbose: bool = True,
    show_progress_bar: bool = False,
    device: torch.device | str = "cpu",
) -> str | list[str]:
    r"""
    Generates dataset of signal/measurement pairs from base dataset.

    It generates the measurement data using the forward operator provided by the user.
    The dataset is saved in HDF5 format and can be easily loaded using the :class:`deepinv.datasets.HDF5Dataset` class.
    The generated dataset contains `train` and `test` splits.

    The base dataset of ground-truth images must return tensors `x` or tuples `(x, ...)`. We provide a large library of predefined
    popular imaging datasets. See :ref:`datasets user guide <datasets>` for more information.

    Optionally, if random physics generator is used to generate data, also save physics generator params.
    This is useful e.g. if you are performing a parameter estimation task and want to evaluate the learnt parameters,
    or for measurement consistency/data fidelity, and require knowledge of the params when constructing the loss.

    .. note::

        We support all dtypes supported by ``h5py`` including complex numbers, which will be stored as complex dtype.

    .. note::

        By default, we overwrite existing datasets if they have been previously created. To avoid this, set ``overwrite_existing=False``.

    :param torch.utils.data.Dataset train_dataset: base dataset of ground-truth images. Must return tensors `x` or tuples `(x, ...)`.
    :param deepinv.physics.Physics physics: Forward operator used to generate the measurement data.
        It can be either a single operator or a list of forward operators. In the latter case, the dataset will be
        assigned evenly across operators.
    :param str save_dir: folder where the dataset and forward operator will be saved.
    :param torch.utils.data.Dataset test_dataset: if included, the function will also generate measurements associated to the test dataset.
    :param torch.utils.data.Dataset val_dataset: if included, the function will also generate measurements associated to the validation dataset.
    :param str dataset_filename: desired filename of the dataset (without extension).
    :param bool overwrite_existing: if ``True``, create new dataset file, overwriting any existing dataset with the same ``dataset_filename``.
        If ``False`` and dataset file already exists, does not create new dataset.
    :param int, None train_datapoints: Desired number of datapoints in the training dataset. If set to ``None``, it will use the
        number of datapoints in the base dataset. This is useful for generating a larger train dataset via data
        augmentation (which should be chosen in the train_dataset).
    :param int, None test_datapoints: Desired number of datapoints in the test dataset. If set to ``None``, it will use the
        number of datapoints in the base test dataset.
    :param int, None val_datapoints: Desired number of datapoints in the val dataset.
    :param None, deepinv.physics.generator.PhysicsGenerator physics_generator: Optional physics generator for generating
            the physics operators. If not None, the physics operators are randomly sampled at each iteration using the generator.
    :param bool save_physics_generator_params: save physics generator params too, ignored if ``physics_generator`` not used.
    :param int batch_size: batch size for generating the measurement data
        (it affects the speed of the generating process, and the physics generator batch size)
    :param int num_workers: number of workers for generating the measurement data
        (it only affects the speed of the generating process)
    :param bool supervised: Generates supervised pairs ``(x,y)`` of measurements and signals.
        If set to ``False``, it will generate a training dataset with measurements only ``(y)``
        and a test dataset with pairs ``(x,y)``
    :param bool verbose: Output progress information in the console.
    :param bool show_progress_bar: Show progress bar during the generation
        of the dataset (if verbose is set to ``True``).
    :param torch.device, str device: device, e.g. cpu or gpu, on which to generate measurements. All data is moved back to cpu before saving.

    """
    import h5py

    if test_dataset is None and train_dataset is None and val_dataset is None:
        raise ValueError("No train or test datasets provided.")

    if not os.path.exists(save_dir):
        os.makedirs(save_dir)

    if not isinstance(physics, (list, tuple)):
        physics = [physics]

    physics = [p.clone() for p in physics]

    G = len(physics)

    save_physics_generator_params = (
        save_physics_generator_params and physics_generator is not None
    )

    if train_dataset is not None:
        n_train = train_datapoints or len(train_dataset)
        n_train_g = int(n_train / G)
        n_dataset_g = int(min(len(train_dataset), n_train) / G)

    if test_dataset is not None:
        n_test = min(len(test_dataset), test_datapoints or len(test_dataset))
        n_test_g = int(n_test / G)

    if val_dataset is not None:
        n_val = min(len(val_dataset), val_datapoints or len(val_dataset))
        n_val_g = int(n_val / G)

    hf_paths = []

    for g in range(G):
        hf_path = f"{save_dir}/{dataset_filename}{g}.h5"
        hf_paths.append(hf_path)

        if os.path.exists(hf_path):
            if overwrite_existing:
                warn(
                    f"Dataset {hf_path} already exists, this will close and overwrite the previous dataset."
                )
                # remove existing dataset to avoid open file error
                os.remove(hf_path)
            else:
                warn(f"Dataset {hf_path} already exists, skipping...")
                continue

        hf = h5py.File(hf_path, "w")

        op_g = physics[g]
        hf.attrs["operator"] = op_g.__class__.__name__
        if isinstance(op_g, StackedPhysics):
            hf.attrs["stacked"] = len(op_g)
        if physics_generator is not None:
            physics_generator.reset_rng()

        def measure(x: Tensor, b: int) -> tuple[Tensor | TensorList, dict | None]:
            if physics_generator is None:
                return op_g(x), None
            params = physics_generator.step(batch_size=b)
            return op_g(x, **params), params

        torch.save(op_g.state_dict(), f"{save_dir}/physics{g}.pt")

        created_splits: set[str] = set()

        def process_batch(
            hf_ds: HDF5Dataset,
            x_batch,
            split_name: str,
            index: int,
            n_split: int,
        ) -> int:
            """Process one batch for a given split and return updated index."""

            x_batch = batch_as_dict(x_batch)
            x = x_batch.get("x", None)

            if x is None:
                raise ValueError(
                    "generate_dataset requires the input dataset to provide ground-truth images under the key 'x'."
                )

            x = x.to(device)

            bsize = x.size(0)
            if split_name == "train" and index + bsize > n_split:
                bsize = n_split - index
            if bsize <= 0:
                return index
            y, params = measure(x, b=bsize)

            if split_name not in created_splits:
                if isinstance(y, TensorList):
                    for i in range(len(y)):
                        hf_ds.create_dataset(
                            f"y{i}_{split_name}",
                            (n_split,) + y[i].shape[1:],
                            dtype=y[0].cpu().numpy().dtype,
                        )
                else:
                    hf_ds.create_dataset(
                        f"y_{split_name}",
                        (n_split,) + y.shape[1:],
                        dtype=y.cpu().numpy().dtype,
                    )

                if split_name != "train" or supervised:
                    hf_ds.create_dataset(
                        f"x_{split_name}",
                        (n_split,) + x.shape[1:],
                        dtype=x.cpu().numpy().dtype,
                    )
                if save_physics_generator_params and params is not None:
                    for k, p in params.items():
                        hf_ds.create_dataset(
                            f"{k}_{split_name}",
                            (n_split,) + p.shape[1:],
                            dtype=p.cpu().numpy().dtype,
                        )
                created_splits.add(split_name)

            sl = slice(index, index + bsize)

            if isinstance(y, TensorList):
                for i in range(len(y)):
                    hf_ds[f"y{i}_{split_name}"][sl] = y[i][:bsize].cpu().numpy()
            else:
                hf_ds[f"y_{split_name}"][sl] = y[:bsize].cpu().numpy()

            if split_name != "train" or supervised:
                hf_ds[f"x_{split_name}"][sl] = x[:bsize].cpu().numpy()

            if save_physics_generator_params and params is not None:
                for k, p in params.items():
                    hf_ds[f"{k}_{split_name}"][sl] = p[:bsize].cpu().numpy()

            return index + bsize

        split_specs = []
        if train_dataset is not None:
            epochs = int(n_train_g / len(train_dataset)) + 1
            train_indices = list(range(g * n_dataset_g, (g + 1) * n_dataset_g))
            split_specs.append(
                ("train", train_dataset, n_train_g, train_indices, epochs)
            )

        if test_dataset is not None:
            test_indices = list(range(g * n_test_g, (g + 1) * n_test_g))
            split_specs.append(("test", test_dataset, n_test_g, test_indices, 1))

        if val_dataset is not None:
            val_indices = list(range(g * n_val_g, (g + 1) * n_val_g))
            split_specs.append(("val", val_dataset, n_val_g, val_indices, 1))

        for split_name, dataset, n_split, indices, epochs in split_specs:
            if n_split <= 0:
                continue

            subset = Subset(dataset, indices=indices)

            epoch_iter = range(epochs)
            if split_name == "train":
                epoch_iter = tqdm(
                    epoch_iter,
                    ncols=150,
                    disable=(not verbose or not show_progress_bar),
                )

            index = 0
            for e in epoch_iter:
                if split_name == "train":
                    desc = (
                        f"Generating dataset operator {g + 1}"
                        if G > 1
                        else f"Generating {split_name} dataset"
                    )
                    epoch_iter.set_description(desc)

                dataloader = DataLoader(
                    subset,
                    batch_size=batch_size,
                    num_workers=num_workers,
                    pin_memory=torch.device(device).type != "cpu",
                    drop_last=False,
                    collate_fn=collate(dataset),
                )

                for x_batch in dataloader:
                    index = process_batch(
                        hf,
                        x_batch,
                        split_name,
                        index,
                        n_split,
                    )

                    # for train, once we've filled n_split samples, we stop
                    if split_name == "train" and index >= n_split:
                        break

                if split_name == "train" and index >= n_split:
                    break

        hf.close()

        if verbose:
            print(f"Dataset has been saved at {hf_path}")

    return hf_paths[0] if G == 1 else hf_paths
