from easytranscriber.data.dataset import StreamingAudioFileDataset

__all__ = ["StreamingAudioFileDataset"]
