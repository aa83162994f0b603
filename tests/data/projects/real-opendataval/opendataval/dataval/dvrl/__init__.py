from opendataval.dataval.dvrl.dvrl import DVRL
