version = "0.0.4"
