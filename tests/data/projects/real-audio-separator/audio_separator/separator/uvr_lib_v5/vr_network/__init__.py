# VR init.
