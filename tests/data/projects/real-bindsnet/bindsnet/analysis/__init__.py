from bindsnet.analysis import pipeline_analysis, plotting, visualization

__all__ = ["plotting", "visualization", "pipeline_analysis"]
