import copy
import warnings
from collections.abc import Iterable
from typing import Literal, TypeAlias, get_args

import lightning as L  # noqa: N812
import torch
from lightning.pytorch.trainer.states import RunningStage
from lightning.pytorch.utilities import CombinedLoader, move_data_to_device
from typing_extensions import override

from replay.data.nn.parquet.parquet_dataset import ParquetDataset

TransformStage: TypeAlias = Literal["train", "validate", "test", "predict"]

DEFAULT_CONFIG = {"train": {"generator": torch.default_generator}}


class ParquetModule(L.LightningDataModule):
    """
    Standardized DataModule with batch-wise support via `ParquetDataset`.

    Allows unified access to all data splits across the training/inference pipeline without loading
    full dataset into memory. See the :ref:`parquet-processing` section for details.

    ParquetModule provides per batch data loading and preprocessing via transform pipelines.
    See the :ref:`Transforms` section for getting info on available batch transforms.

    **Note:**

    *   ``ParquetModule`` supports only numeric values (boolean/integer/float),
        therefore, the data paths passed as arguments must contain encoded data.
    *   For achieving maximum performance, set the ARROW_NUM_THREADS and ARROW_IO_THREADS to match
        the number of available CPU cores and set the OMP_NUM_THREADS and MKL_NUM_THREADS to 1, also set
        *torch.set_num_threads(1)* and *torch.set_num_interop_threads(1)*.
    *   It's possible to use all train/validate/test/predict splits, then paths to splits should be passed
        as corresponding arguments of ``ParquetModule``.
        Alternatively, all the paths to the splits may be not specified
        but then do not forget to configure the Pytorch Lightning Trainer's instance accordingly.
        For example, if you don't want to use validation data, you are able not to set the `validate_path` parameter
        in ``ParquetModule`` and set ``limit_val_batches=0`` in Ligthning.Trainer.

    """

    def __init__(
        self,
        batch_size: int | dict[str, int],
        metadata: dict,
        transforms: dict[TransformStage, list[torch.nn.Module]],
        config: dict | None = None,
        *,
        train_path: str | None = None,
        validate_path: str | list[str] | None = None,
        test_path: str | list[str] | None = None,
        predict_path: str | list[str] | None = None,
    ) -> None:
        """
        :param batch_size: Target batch size. Can be:

            * An integer that means the same batch size will be used for all data splits.
            * A dictionary mapping split names to their corresponding batch sizes.
              Example: {"train": 64, "validate": 128}.

        :param metadata: A dictionary mapping each data split to a dictionary of feature names
            where each feature is associated with its shape and padding_value.\n
            Example: {"train": {"item_id" : {"shape": 100, "padding_value": 7657}}}.\n
            For details, see the section :ref:`parquet-processing`.
        :param config: A dict specifying configuration options of ``ParquetDataset`` (a generator,
            a filesystem, collate_fn and all other possible arguments excluding source, metadata and batch_size)
            for each data split.\n
            Default: ``DEFAULT_CONFIG``. The default configuration contains PyTorch generator for batch shuffling
            at a train stage. In most scenarios, it is sufficient.
        :param transforms: A dict specifying a sequence of Transform modules for each data split.
        :param train_path: A path to the Parquet file containing train data split. Default: ``None``.
        :param validate_path: A path to the Parquet file or files containing validation data split. Default: ``None``.
        :param test_path: A path to the Parquet file or files containing testing data split. Default: ``None``.
        :param predict_path: A path to the Parquet file or files containing prediction data split. Default: ``None``.
        """
        if not any([train_path, validate_path, test_path, predict_path]):
            msg = (
                f"{type(self)}.__init__() expects at least one of "
                "['train_path', 'val_path', 'test_path', 'predict_path], but none were provided."
            )
            raise KeyError(msg)

        if train_path and not isinstance(train_path, str) and isinstance(train_path, Iterable):
            msg = "'train_path' does not support multiple datapaths."
            raise TypeError(msg)

        super().__init__()

        self.datapaths = {"train": train_path, "validate": validate_path, "test": test_path, "predict": predict_path}
        missing_splits = [split_name for split_name, split_path in self.datapaths.items() if split_path is None]
        if missing_splits:
            msg = (
                f"The following dataset paths aren't provided: {','.join(missing_splits)}. "
                "Make sure to disable these stages in your Lightning Trainer configuration."
            )
            warnings.warn(msg, stacklevel=2)

        splits = list(set(self.datapaths) - set(missing_splits))
        missing_metadata = [split for split in splits if split not in metadata]
        if missing_metadata:
            msg = f"`metadata` doesn't contain values for the following splits: {missing_metadata}."
            raise KeyError(msg)
        self.metadata = copy.deepcopy(metadata)

        if isinstance(batch_size, dict):
            missing_batch_sizes = [split for split in splits if split not in batch_size]
            if missing_batch_sizes:
                msg = f"`batch_size` doesn't contain values for the following splits: {missing_batch_sizes}."
                raise KeyError(msg)
        self.batch_size = batch_size

        if config is None:
            config = DEFAULT_CONFIG
        self.config = config

        self.moved = False
        self.datasets: dict[str, ParquetDataset | CombinedLoader] = {}
        self.transforms = transforms
        self.compiled_transforms = self.prepare_transforms(transforms)

    def prepare_transforms(
        self, transforms: dict[TransformStage, list[torch.nn.Module]]
    ) -> dict[TransformStage, torch.nn.Sequential]:
        """
        Preform meta adjustments based on provided transform pipelines,
        then compile each subset into a `torch.nn.Sequential` module.

        :param: transforms: Python dict where keys are names of stage (train, validate, test, predict)
            and values are corresponding transform pipelines for every stage.
        :returns: out: Compiled transform pipelines.
        """
        if not any(subset in get_args(TransformStage) for subset in transforms):
            msg = (
                f"Expected transform.keys()={list(transforms.keys())} to contain at least "
                f"one of {get_args(TransformStage)}, but none were found."
            )
            raise KeyError(msg)

        compiled_transorms = {}
        for subset, transform_set in transforms.items():
            compiled_transorms[subset] = torch.nn.Sequential(*transform_set)

        return compiled_transorms

    @override
    def setup(self, stage):
        for subset in get_args(TransformStage):
            subset_datapaths = self.datapaths.get(subset, None)
            if subset_datapaths is not None:
                subset_config = copy.deepcopy(self.config.get(subset, {}))
                shared_kwargs = {
                    "metadata": self.metadata[subset],
                    "batch_size": self.batch_size.get(subset) if isinstance(self.batch_size, dict) else self.batch_size,
                    "partition_size": subset_config.pop("partition_size", 2**20),
                    "device": subset_config.pop(
                        "device", torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
                    ),
                }

                if isinstance(subset_datapaths, list):
                    loaders = [
                        ParquetDataset(**{"source": path, **shared_kwargs, **subset_config})
                        for path in subset_datapaths
                    ]
                    self.datasets[subset] = CombinedLoader(loaders, mode="sequential")
                else:
                    self.datasets[subset] = ParquetDataset(
                        **{"source": subset_datapaths, **shared_kwargs, **subset_config}
                    )

    @override
    def train_dataloader(self):
        return self.datasets["train"]

    @override
    def val_dataloader(self):
        return self.datasets["validate"]

    @override
    def test_dataloader(self):
        return self.datasets["test"]

    @override
    def predict_dataloader(self):
        return self.datasets["predict"]

    @override
    def on_after_batch_transfer(self, batch, _dataloader_idx):
        stage = self.trainer.state.stage
        target = RunningStage.VALIDATING if stage is RunningStage.SANITY_CHECKING else stage
        return self.compiled_transforms[str(target.value)](batch)

    @override
    def transfer_batch_to_device(self, batch, device: torch.device, dataloader_idx: int):
        if not self.moved:
            self.moved = True
            for transform in self.compiled_transforms.values():
                transform.to(device)
        return move_data_to_device(batch, device)
