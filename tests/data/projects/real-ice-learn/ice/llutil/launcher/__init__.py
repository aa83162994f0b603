from .launcher import ElasticLauncher, get_current_launcher
from .events import Events, global_shared_events
