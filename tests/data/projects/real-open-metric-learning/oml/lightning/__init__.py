try:
    import pytorch_lightning
except ImportError as e:
    raise ImportError(
        f"{e}\n OML doesn't have lightning as a requirement." f"Run <pip install open-metric-learning[pipelines]>"
    )

from oml.lightning.callbacks.metric import MetricValCallback
from oml.lightning.modules.extractor import ExtractorModule, ExtractorModuleDDP
from oml.lightning.modules.pairwise_postprocessing import (
    PairwiseModule,
    PairwiseModuleDDP,
)
from oml.lightning.pipelines import logging
