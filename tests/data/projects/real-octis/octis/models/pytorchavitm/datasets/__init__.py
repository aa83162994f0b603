"""Init datasets."""

from octis.models.pytorchavitm.datasets.bow import BOWDataset
