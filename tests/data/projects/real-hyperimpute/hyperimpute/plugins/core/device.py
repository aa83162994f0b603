DEVICE = "cpu"
