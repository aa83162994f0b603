#! /usr/bin/env python3
from __future__ import annotations

from aksetup_helper import configure_frontend


configure_frontend()
