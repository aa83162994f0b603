# TODO: Integrating VGGT with COLMAP needs point tracking implemented on
# AbstractViewPointTracker from https://github.com/yindaheng98/track-4dgs.
