from .Task import Task
from .TaskSample import TaskSample
from .ArgumentsExtractionSample import ArgumentsExtractionSample
from .ArgumentsExtractionTask import ArgumentsExtractionTask
from .FrameClassificationSample import FrameClassificationSample
from .FrameClassificationTask import FrameClassificationTask
from .TriggerIdentificationSample import TriggerIdentificationSample
from .TriggerIdentificationTask import TriggerIdentificationTask

__all__ = (
    "Task",
    "TaskSample",
    "ArgumentsExtractionSample",
    "ArgumentsExtractionTask",
    "FrameClassificationSample",
    "FrameClassificationTask",
    "TriggerIdentificationSample",
    "TriggerIdentificationTask",
)
