from .dataset import Dataset
from .large_img_dataset import LargeImgDataset
from .sequential_dataset import SequentialDataset

from .celeba_data import CelebAData
from .cifar10_data import CIFAR10Data
from .cifar100_data import CIFAR100Data
#from .cub_200_2011_data import CUB2002011
from .fashion_mnist import FashionMNISTData
#from .ilsvrc2012_data import ILSVRC2012Data
from .mnist_data import MNISTData
from .svhn_data import SVHNData
from .udacity_ch2 import UdacityCh2Data