#!/usr/bin/env python3

from .particles_2d import Particles2DEnv
