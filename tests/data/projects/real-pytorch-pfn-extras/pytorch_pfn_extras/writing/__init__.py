from pytorch_pfn_extras.writing._parallel_writer import ProcessWriter  # NOQA
from pytorch_pfn_extras.writing._parallel_writer import ThreadWriter  # NOQA
from pytorch_pfn_extras.writing._queue_writer import ProcessQueueWriter  # NOQA
from pytorch_pfn_extras.writing._queue_writer import QueueWriter  # NOQA
from pytorch_pfn_extras.writing._queue_writer import ThreadQueueWriter  # NOQA
from pytorch_pfn_extras.writing._simple_writer import SimpleWriter  # NOQA
from pytorch_pfn_extras.writing._tensorboard_writer import (  # NOQA
    TensorBoardWriter,
)
from pytorch_pfn_extras.writing._writer_base import StandardWriter  # NOQA
from pytorch_pfn_extras.writing._writer_base import Writer  # NOQA
