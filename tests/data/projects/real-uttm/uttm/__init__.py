from .template_matcher import Template_Matcher

__all__ = ["Template_Matcher"]
