from .unified_dataset import UnifiedDataset
