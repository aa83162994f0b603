#!/usr/bin/env python
# -*- coding: utf-8 -*-

"""
# Train Submodule.

This module contains utilities for training segmentation models.
"""
