import numpy
import h5py        
    