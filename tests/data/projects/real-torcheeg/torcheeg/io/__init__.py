from .eeg_signal import EEGSignalIO
from .meta_info import MetaInfoIO