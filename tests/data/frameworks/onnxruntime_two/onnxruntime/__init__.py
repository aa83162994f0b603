"""An onnxruntime that two distributions installed over each other (compat-rules.md B6.3).

The CPU build was installed last, so its compiled module is the one on disk and CUDA is gone: the
providers are the ones ORT's own warning lists in that situation.
"""

__version__ = "1.20.1"


def get_available_providers():
    return ["AzureExecutionProvider", "CPUExecutionProvider"]


def get_device():
    return "CPU"
