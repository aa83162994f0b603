# BoxMOT AGPL-3.0 license

"""Model-family packages for ReID backbones."""
