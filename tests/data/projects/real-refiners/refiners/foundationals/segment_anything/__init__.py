from refiners.foundationals.segment_anything.model import SegmentAnything, SegmentAnythingH

__all__ = ["SegmentAnything", "SegmentAnythingH"]
