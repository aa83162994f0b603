from codeformer.basicsr.ops.dcn.deform_conv import (
    DeformConv,
    DeformConvPack,
    ModulatedDeformConv,
    ModulatedDeformConvPack,
    deform_conv,
    modulated_deform_conv,
)

__all__ = [
    "DeformConv",
    "DeformConvPack",
    "ModulatedDeformConv",
    "ModulatedDeformConvPack",
    "deform_conv",
    "modulated_deform_conv",
]
