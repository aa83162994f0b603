from .sgdataset import DataGroup, SizeGroupedDataset, SizeGroupedSampler  # noqa: F401
