"""Per-file scanners of the audit: Python source (python.py), C/C++/CUDA (native.py), build and
deployment files (build.py), model files (artifacts.py, with onnx_proto.py). Each emits signals."""
