# -*- coding: utf-8 -*-
"""EulerForge Export — HuggingFace 모델 내보내기."""
