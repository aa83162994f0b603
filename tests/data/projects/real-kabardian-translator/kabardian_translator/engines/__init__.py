"""Translation engines: our Kabardian model (ONNX Runtime) and MADLAD-400 (Core ML, Neural Engine)."""
