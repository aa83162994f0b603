from maestro.trainer.common.metrics import BLEUMetric, MeanAveragePrecisionMetric
