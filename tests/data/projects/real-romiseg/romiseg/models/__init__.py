#!/usr/bin/env python
# -*- coding: utf-8 -*-

"""
# Models Definitions.

This module contains neural network model definitions.
"""
