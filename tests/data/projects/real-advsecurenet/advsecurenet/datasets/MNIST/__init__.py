from advsecurenet.datasets.MNIST.mnist_dataset import FashionMNISTDataset, MNISTDataset
