from torchmeta import datasets
from torchmeta import modules
from torchmeta import toy
from torchmeta import transforms
from torchmeta import utils

from torchmeta.version import VERSION as __version__
