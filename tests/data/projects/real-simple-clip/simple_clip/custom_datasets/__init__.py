from simple_clip.custom_datasets.clip_datasets import COCODataset, SBUDataset
