version = "0.13.0"
