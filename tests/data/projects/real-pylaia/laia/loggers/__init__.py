from laia.loggers.epoch_csv_logger import EpochCSVLogger
