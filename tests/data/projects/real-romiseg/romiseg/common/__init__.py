#!/usr/bin/env python
# -*- coding: utf-8 -*-

"""
# Common Utilities.

This module contains utilities that are used by both training and prediction code.
"""
