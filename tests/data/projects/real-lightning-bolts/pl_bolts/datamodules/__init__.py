from pl_bolts.datamodules.async_dataloader import AsynchronousLoader
from pl_bolts.datamodules.binary_emnist_datamodule import BinaryEMNISTDataModule
from pl_bolts.datamodules.binary_mnist_datamodule import BinaryMNISTDataModule
from pl_bolts.datamodules.cifar10_datamodule import CIFAR10DataModule, TinyCIFAR10DataModule
from pl_bolts.datamodules.cityscapes_datamodule import CityscapesDataModule
from pl_bolts.datamodules.emnist_datamodule import EMNISTDataModule
from pl_bolts.datamodules.experience_source import DiscountedExperienceSource, ExperienceSource, ExperienceSourceDataset
from pl_bolts.datamodules.fashion_mnist_datamodule import FashionMNISTDataModule
from pl_bolts.datamodules.imagenet_datamodule import ImagenetDataModule
from pl_bolts.datamodules.kitti_datamodule import KittiDataModule
from pl_bolts.datamodules.mnist_datamodule import MNISTDataModule
from pl_bolts.datamodules.sklearn_datamodule import SklearnDataModule, SklearnDataset
from pl_bolts.datamodules.sr_datamodule import TVTDataModule
from pl_bolts.datamodules.ssl_imagenet_datamodule import SSLImagenetDataModule
from pl_bolts.datamodules.stl10_datamodule import STL10DataModule
from pl_bolts.datamodules.vocdetection_datamodule import VOCDetectionDataModule
from pl_bolts.datasets.kitti_dataset import KittiDataset

__all__ = [
    "AsynchronousLoader",
    "BinaryMNISTDataModule",
    "CIFAR10DataModule",
    "TinyCIFAR10DataModule",
    "CityscapesDataModule",
    "DiscountedExperienceSource",
    "ExperienceSource",
    "ExperienceSourceDataset",
    "FashionMNISTDataModule",
    "ImagenetDataModule",
    "KittiDataModule",
    "MNISTDataModule",
    "SklearnDataModule",
    "SklearnDataset",
    "TVTDataModule",
    "SSLImagenetDataModule",
    "STL10DataModule",
    "VOCDetectionDataModule",
    "KittiDataset",
    "EMNISTDataModule",
    "BinaryEMNISTDataModule",
]
