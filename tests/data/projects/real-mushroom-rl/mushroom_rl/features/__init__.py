from .features import Features, get_action_features

__all__ = ['Features', 'get_action_features']
