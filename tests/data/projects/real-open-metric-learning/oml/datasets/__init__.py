from oml.datasets.audios import (
    AudioBaseDataset,
    AudioLabeledDataset,
    AudioQueryGalleryDataset,
    AudioQueryGalleryLabeledDataset,
)
from oml.datasets.images import (
    ImageBaseDataset,
    ImageLabeledDataset,
    ImageQueryGalleryDataset,
    ImageQueryGalleryLabeledDataset,
)
from oml.datasets.pairs import PairDataset
from oml.datasets.texts import (
    TextBaseDataset,
    TextLabeledDataset,
    TextQueryGalleryDataset,
    TextQueryGalleryLabeledDataset,
)
