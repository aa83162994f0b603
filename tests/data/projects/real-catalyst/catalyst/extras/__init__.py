# flake8: noqa
from catalyst.extras.frozen_class import FrozenClass
from catalyst.extras.forward_wrapper import ModelForwardWrapper
from catalyst.extras.metric_handler import MetricHandler
from catalyst.extras.time_manager import TimeManager
