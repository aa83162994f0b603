from .data import Graph, Adjacency
from .batch import Batch, batch_graphs
from .dataset import Dataset, MultiGraphDataset
from .dataloader import DataLoader

__all__ = ["Graph", "Adjacency", "Batch", "Dataset", "DataLoader", "MultiGraphDataset", "batch_graphs"]
