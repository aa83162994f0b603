from .adalam import AdalamMatcher
from .kornia_matcher import KorniaMatcher
from .lightglue import LightGlueMatcher
from .loftr import LOFTRMatcher
from .matcher_base import DetectorFreeMatcherBase, MatcherBase, matcher_loader
from .roma import RomaMatcher
from .se2loftr import SE2LOFTRMatcher
from .superglue import SuperGlueMatcher
