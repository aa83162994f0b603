from typing import Any, Callable
import os
from PIL import Image

from deepinv.datasets.utils import calculate_md5
from deepinv.datasets.base import ImageDataset
from .utils import resolve_root


class CBSD68(ImageDataset):
    """Dataset for `CBSD68 <https://paperswithcode.com/dataset/cbsd68>`_.

    Color BSD68 dataset for image restoration benchmarks is part of The Berkeley Segmentation Dataset and Benchmark from :footcite:t:`martin2001database`.
    It is used for measuring image restoration algorithms performance. It contains 68 images.


    **Raw data file structure:** ::

            self.root --- data-00000-of-00001.arrow
                       -- dataset_info.json
                       -- state.json

    This dataset wraps the HuggingFace version of the dataset.
    HF source : https://huggingface.co/datasets/deepinv/CBSD68

    .. note::

        Using the CBSD68 dataset requires the `datasets` library. It can be installed via `pip install datasets`.

    :param str root: Root directory of dataset. Directory path from where we load and save the dataset.
    :param bool download: If ``True``, downloads the dataset from the internet and puts it in root directory.
        If dataset is already downloaded, it is not downloaded again. Default at False.
    :param Callable transform: (optional) A function/transform that takes in a PIL image
        and returns a transformed version. E.g, ``torchvision.transforms.RandomCrop``
    :param bool rotate: If set to ``True`` images are rotated to have all the same orientation. This can be important to use a torch dataloader.
        Default at False.
    :param bool use_dict_output: whether to return output as a dict with key ``"x"`` instead of an image (default ``False``).

    |sep|

    :Examples:

        Instantiate dataset and download raw data from the Internet

        >>> import shutil
        >>> from deepinv.datasets import CBSD68
        >>> dataset = CBSD68(root="CBSD68", download=True)  # download raw data at root and load dataset
        Dataset has been successfully downloaded.
        >>> print(dataset.check_dataset_exists())                # check that raw data has been downloaded correctly
        True
        >>> print(len(dataset))                                  # check that we have 68 images
        68
        >>> shutil.rmtree("CBSD68")                         # remove raw data from disk

    .. note::

        This class requires the ``datasets`` package to be installed. Install with ``pip install datasets``.

    """

    # for integrity of downloaded data
    checksum = "18e128fbf5bb99ea7fca35f59683ea39"

    def __init__(
        self,
        root: str = None,
        download: bool = False,
        transform: Callable = None,
        rotate=False,
        use_dict_output: bool = False,
    ) -> None:
        super().__init__(use_dict_output=use_dict_output)
        try:
            from datasets import load_dataset as load_dataset_hf, load_from_disk
        except ImportError:  # pragma: no cover
            raise ImportError(
                "The library 'datasets' is required to for the CBSD68 dataset. Install it using pip install datasets"
            )

        self.root = resolve_root(root, "CBSD68")
        self.transform = transform
        self.rotate = rotate

        # download dataset, we check first that dataset isn't already downloaded
        if not self.check_dataset_exists():
            if download:
                # source : https://github.com/huggingface/datasets/issues/6703
                # load_dataset : download from Internet, raw data formats like CSV are processed into Arrow format, then saved in a cache dir
                hf_dataset = load_dataset_hf("deepinv/CBSD68", split="train")

                # '__url__' column contains absolute paths to raw data in the cache dir which is unnecessary when saving the dataset
                if "__url__" in hf_dataset.column_names:
                    # Remove the '__url__' column
                    hf_dataset = hf_dataset.remove_columns("__url__")
                hf_dataset.save_to_disk(self.root)

                if self.check_dataset_exists():
                    print("Dataset has been successfully downloaded.")
                else:
                    raise ValueError("There is an issue with the data downloaded.")
            # stop the execution since the dataset is not available and we didn't download it
            else:
                raise RuntimeError(
                    f"Dataset not found at `{self.root}`. Please set `root` correctly (currently `root={self.root}`) OR set `download=True` (currently `download={download}`)."
                )

        self.hf_dataset = load_from_disk(self.root)

    def __len__(self) -> int:
        return len(self.hf_dataset)

    def __getitem__(self, idx: int) -> Any:
        # PIL Image
        img = self.hf_dataset[idx]["png"]

        if self.rotate:
            width, height = img.size
            if width > height:
                img = img.transpose(Image.ROTATE_90)

        if self.transform is not None:
            img = self.transform(img)

        return {"x": img} if self.use_dict_output else img

    def check_dataset_exists(self) -> bool:
        """Verify that the HuggingFace dataset folder exists and contains the raw data file.

        ``self.root`` should have the following structure: ::

            self.root --- data-00000-of-00001.arrow
                       -- xxx
                       -- xxx

        This is a soft verification as we don't check all the files in the folder.
        """
        raw_data_fpath = os.path.join(self.root, "data-00000-of-00001.arrow")
        if not os.path.exists(raw_data_fpath):
            return False
        return calculate_md5(fpath=raw_data_fpath) == self.checksum
