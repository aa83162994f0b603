"""
Models for EnCodec (and Mimi), and FlowLMModel.
"""
