from joetorch.datasets.mnist import MNIST, FashionMNIST
from joetorch.datasets.dataset import PreloadedDataset
from joetorch.datasets.imagenet import ImageNet

__all__ = ['MNIST', 'FashionMNIST', 'PreloadedDataset', 'ImageNet']