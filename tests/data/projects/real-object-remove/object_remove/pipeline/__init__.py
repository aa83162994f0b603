"""Pipeline orchestration."""

from .remove_object_job import (
    RemoveObjectJob, EngineTier, JobResult, ProgressFn, CancelFn,
)

__all__ = ["RemoveObjectJob", "EngineTier", "JobResult", "ProgressFn", "CancelFn"]
