"""
Core modules for vogel-model-trainer.

This package contains the main functionality:
- extractor: Extract bird images from videos using YOLO
- organizer: Organize extracted images into train/val splits
- trainer: Train custom bird species classifiers
- tester: Test and evaluate trained models
"""

# Import main functions for easy access
# These will be properly defined once the modules are refactored

__all__ = [
    "extractor",
    "organizer",
    "trainer",
    "tester",
]
