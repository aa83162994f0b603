"""Diffenet file formats for various event cameras and datasets.
"""
from .aedat import IteratorAedat4Event
from .aedat import IteratorAedat4Frame
from .aedat import IteratorAedat4Imu
from .aedat import IteratorAedat4Trigger
from .conversion import convert_iterator_access_to_hdf5
from .evk import IteratorEvk3
from .hdf5 import load_event_timestamp_hdf5
from .hdf5 import load_hdf5
from .hdf5 import open_hdf5
from .text import IteratorTextEvent
from .text import IteratorTextFrame
from .text import IteratorTextImu
from .text import IteratorTextPose
from .text import IteratorTextTimestamps
from .bin import IteratorBinEvent
