from .datasets import get_datasets
