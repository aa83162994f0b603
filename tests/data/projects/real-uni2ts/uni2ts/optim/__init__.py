from .lr_scheduler import SchedulerType, get_scheduler

__all__ = ["SchedulerType", "get_scheduler"]
