from opendataval.dataval.oob.oob import DataOob
