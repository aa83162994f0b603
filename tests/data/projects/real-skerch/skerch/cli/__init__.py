#!/usr/bin/env python
# -*- coding: utf-8 -*-


"""Command Line Interfacing utilities for ``skerch``."""
