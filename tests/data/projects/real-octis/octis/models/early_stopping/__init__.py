from octis.models.early_stopping.pytorchtools import EarlyStopping
