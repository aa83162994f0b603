"""
DeepLabCut Toolbox (deeplabcut.org)
© A. & M. Mathis Labs

Licensed under GNU Lesser General Public License v3.0
"""

# Check which backends are installed and get available backends
# (Emits a warning if neither TensorFlow nor PyTorch is installed)
from dlclive.utils import get_available_backends
_AVAILABLE_BACKENDS = get_available_backends()

from dlclive.display import Display
from dlclive.dlclive import DLCLive
from dlclive.processor.processor import Processor
from dlclive.version import VERSION, __version__
from dlclive.benchmark import benchmark_videos, download_benchmarking_data