from .model_runner import ModelRunner
