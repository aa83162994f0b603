# -*- coding: utf-8 -*-
"""
Created on Tue Aug 15 11:41:20 2023

@author: ZHANG Jun
"""

# import important object.
from .find_adsorption_site import find_adsorption_site
from .generate_adsorption_sites import AddAtoms
from .high_throughput_predict import HtAds
from .increase_vacuum import increase_vacuum
from .volcano_2e import volcano_2e
from .volcano_plot import volcano_plot

from .high_throughput_dft_calculation import HtDftAds

