# Copyright (c) 2021, yolort team. All rights reserved.

from .lightning_task import DefaultTask

__all__ = ["DefaultTask"]
