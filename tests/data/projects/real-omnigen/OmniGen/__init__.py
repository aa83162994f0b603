from .model import OmniGen
from .processor import OmniGenProcessor
from .scheduler import OmniGenScheduler
from .pipeline import OmniGenPipeline