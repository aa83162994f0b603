from ._artifact import ImageArtifact, VideoArtifact
from .dataloader import DPDataLoader
from .dataset import (
    ImageCaptionFilePairDataset,
    ImageFileCaptionFileListDataset,
    ImageFolderDataset,
    ImageWebDataset,
    ValidationDataset,
    VideoCaptionFilePairDataset,
    VideoFileCaptionFileListDataset,
    VideoFolderDataset,
    VideoWebDataset,
    combine_datasets,
    initialize_dataset,
    wrap_iterable_dataset_for_preprocessing,
)
from .precomputation import (
    InMemoryDataIterable,
    InMemoryDistributedDataPreprocessor,
    InMemoryOnceDataIterable,
    PrecomputedDataIterable,
    PrecomputedDistributedDataPreprocessor,
    PrecomputedOnceDataIterable,
    initialize_preprocessor,
)
from .sampler import ResolutionSampler
