auto_loaded_model = {}
