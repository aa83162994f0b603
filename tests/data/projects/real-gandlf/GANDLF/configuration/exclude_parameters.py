exclude_parameters = {"differential_privacy"}
