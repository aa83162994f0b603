from .easy_data_wrapper import EasyDatasetWrapper
from .std import parameter_std
