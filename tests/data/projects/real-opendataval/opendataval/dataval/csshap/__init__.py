from opendataval.dataval.csshap.csshap import ClassWiseShapley
