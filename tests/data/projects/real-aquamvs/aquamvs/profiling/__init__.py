"""Profiling infrastructure for identifying pipeline bottlenecks."""

from .analyzer import ProfileReport, StageProfile, build_report, format_report
from .profiler import (
    PipelineProfiler,
    get_active_profiler,
    profile_pipeline,
    set_active_profiler,
    timed_stage,
)

__all__ = [
    "PipelineProfiler",
    "ProfileReport",
    "StageProfile",
    "build_report",
    "format_report",
    "get_active_profiler",
    "profile_pipeline",
    "set_active_profiler",
    "timed_stage",
]
