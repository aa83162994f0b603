from onnx2torch.converter import convert
