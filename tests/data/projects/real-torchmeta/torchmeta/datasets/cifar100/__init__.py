from torchmeta.datasets.cifar100.cifar_fs import CIFARFS
from torchmeta.datasets.cifar100.fc100 import FC100

__all__ = ['CIFARFS', 'FC100']
