from xaytune.studio.events import EventBus, TrainingEvent, register_event_callbacks
from xaytune.studio.jobs import JobInfo, JobManager, JobStatus

__all__ = [
    "EventBus",
    "JobInfo",
    "JobManager",
    "JobStatus",
    "TrainingEvent",
    "register_event_callbacks",
]
