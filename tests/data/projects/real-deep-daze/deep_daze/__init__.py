from deep_daze.deep_daze import DeepDaze, Imagine
