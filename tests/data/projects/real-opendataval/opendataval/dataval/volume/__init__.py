from opendataval.dataval.volume.rvs import RobustVolumeShapley
