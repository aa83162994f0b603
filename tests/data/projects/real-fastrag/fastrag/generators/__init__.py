from .fid import FiDGenerator
from .gaudi import GaudiGenerator
from .ipex import IPEXGenerator
from .llava import LlavaHFGenerator
from .openvino import OpenVINOGenerator
from .ort import ORTGenerator
from .replug import ReplugGenerator
