"""torch.version, as a release's generated file reads."""

import torch

__version__ = torch.BUILD["version"]
debug = torch.BUILD.get("debug", False)
cuda = torch.BUILD.get("cuda")
hip = torch.BUILD.get("hip")
xpu = torch.BUILD.get("xpu")
git_version = torch.BUILD.get("git_version")
