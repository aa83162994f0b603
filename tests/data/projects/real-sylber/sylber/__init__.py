from .model.sylber import Segmenter, Sylber
from .model.segment_synthesis import SegmentSynthesis