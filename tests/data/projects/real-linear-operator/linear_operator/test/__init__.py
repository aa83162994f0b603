#!/usr/bin/env python3
from __future__ import annotations
