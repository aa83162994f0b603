from .conversion_enums import ExportTargetBackend, ExportQuantizationMode, DetectionOutputFormatMode
from .export_params import ExportParams

__all__ = ["ExportQuantizationMode", "DetectionOutputFormatMode", "ExportTargetBackend", "ExportParams"]
