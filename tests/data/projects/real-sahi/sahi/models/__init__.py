"""SAHI model classes for various detection frameworks.

This package provides a unified interface for object detection and instance
segmentation models from multiple frameworks including Detectron2, MMDetection,
HuggingFace Transformers, Roboflow, Ultralytics YOLO variants, and TorchVision.
"""
