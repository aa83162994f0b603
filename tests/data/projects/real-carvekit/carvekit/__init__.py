version = "4.1.2"
