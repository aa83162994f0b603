from .icalabel import data_path, has_icalabel_testing_data
