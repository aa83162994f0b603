from beat_this.dataset.dataset import BeatDataModule
