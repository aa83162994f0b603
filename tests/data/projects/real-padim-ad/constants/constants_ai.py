supported_feature_extraction_models = [
    'resnet18',
    'wide_resnet50_2',
]
