from advsecurenet.datasets.base_dataset import BaseDataset
from advsecurenet.datasets.Cifar10.cifar10_dataset import CIFAR10Dataset
from advsecurenet.datasets.MNIST.mnist_dataset import MNISTDataset
from advsecurenet.datasets.ImageNet.imagenet_dataset import ImageNetDataset
from advsecurenet.datasets.dataset_factory import DatasetFactory

__all__ = [
    "BaseDataset",
    "CIFAR10Dataset",
    "MNISTDataset",
    "ImageNetDataset",
    "DatasetFactory",
]
