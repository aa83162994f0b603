from .metrics_callback import ComputeMetricsCallback
from .predictions_callback import (
    HiddenStatesCallback,
    PandasTopItemsCallback,
    PolarsTopItemsCallback,
    SparkTopItemsCallback,
    TopItemsCallbackBase,
    TorchTopItemsCallback,
)
