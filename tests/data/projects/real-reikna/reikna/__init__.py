from reikna.cluda.array_helpers import concatenate, roll

