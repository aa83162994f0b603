from .alike import AlikeExtractor
from .dedode import DeDoDe
from .disk import DiskExtractor
from .extractor_base import ExtractorBase, extractor_loader
from .keynetaffnethardnet import KeyNet
from .orb import ORBExtractor
from .sift import SIFTExtractor
from .superpoint import SuperPointExtractor
