from ultrack.config.config import LinkingConfig, MainConfig, load_config
from ultrack.config.dataconfig import DataConfig
from ultrack.config.segmentationconfig import SegmentationConfig
from ultrack.config.trackingconfig import TrackingConfig
