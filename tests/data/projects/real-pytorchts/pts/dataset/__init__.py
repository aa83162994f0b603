from .loader import TransformedIterableDataset
