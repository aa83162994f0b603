"""Benchmark tools for comparing pipeline execution pathways."""

from .report import format_console_table, format_markdown_report, save_markdown_report
from .runner import BenchmarkResult, PathwayResult, build_pathways, run_benchmark

__all__ = [
    "run_benchmark",
    "BenchmarkResult",
    "PathwayResult",
    "build_pathways",
    "format_console_table",
    "format_markdown_report",
    "save_markdown_report",
]
