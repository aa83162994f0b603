#!/usr/bin/env python3
# -*- coding: utf-8 -*-

"""
# Utilities Submodule.

This submodule contains various utilities.
"""
