from pytorch_accelerated.schedulers.cosine_scheduler import CosineLrScheduler
from pytorch_accelerated.schedulers.wsd_scheduler import WSDLrScheduler
from pytorch_accelerated.schedulers.scheduler_base import (
    StatefulSchedulerBase,
    SchedulerBase,
)
