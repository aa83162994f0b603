from advsecurenet.datasets.svhn.svhn_dataset import SVHNDataset
