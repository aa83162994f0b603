from nanorlhf.nanosets.api import Dataset, load_dataset, load_from_disk
