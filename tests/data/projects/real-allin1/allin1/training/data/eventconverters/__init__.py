from .eventconverters import EventConverter, BeatConverter, DownbeatConverter, SectionConverter
from .datasetconverters import DatasetConverter, HarmonixConverter
