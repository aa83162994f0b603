from .dynamic_graph_temporal_signal import *
from .dynamic_graph_temporal_signal_batch import *

from .static_graph_temporal_signal import *
from .static_graph_temporal_signal_batch import *

from .dynamic_graph_static_signal import *
from .dynamic_graph_static_signal_batch import *

from .dynamic_hetero_graph_temporal_signal import *
from .dynamic_hetero_graph_temporal_signal_batch import *

from .static_hetero_graph_temporal_signal import *
from .static_hetero_graph_temporal_signal_batch import *

from .dynamic_hetero_graph_static_signal import *
from .dynamic_hetero_graph_static_signal_batch import *

from .train_test_split import *

# from .index_dataset import *
