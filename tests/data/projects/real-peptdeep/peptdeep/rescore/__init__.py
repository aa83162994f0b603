from peptdeep.rescore import feature_extractor
