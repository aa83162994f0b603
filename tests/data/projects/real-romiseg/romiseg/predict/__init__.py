#!/usr/bin/env python
# -*- coding: utf-8 -*-

"""
# Prediction Submodule.

This module contains utilities for making predictions with trained segmentation models.
"""
