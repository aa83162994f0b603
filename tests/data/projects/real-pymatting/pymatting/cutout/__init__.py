from pymatting.cutout.cutout import cutout
