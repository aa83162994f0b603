VERSION: str = "0.0.1"
