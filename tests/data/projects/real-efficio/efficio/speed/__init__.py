"""Speed features: DataLoader tuning, channels_last, the GPU data pipeline and GPU augmentation."""
