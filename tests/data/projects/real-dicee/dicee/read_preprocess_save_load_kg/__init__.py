from .preprocess import PreprocessKG # noqa
from .save_load_disk import LoadSaveToDisk # noqa
from .read_from_disk import ReadFromDisk # noqa
