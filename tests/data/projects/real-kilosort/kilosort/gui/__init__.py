"""
This module contains all files required by the pykilosort GUI.
"""
from .data_view_box import DataViewBox
from .header_box import HeaderBox
from .message_log_box import MessageLogBox
from .minor_gui_elements import ProbeBuilder, controls_popup_text, help_popup_text
from .palettes import COLORMAP_COLORS, DarkPalette
from .probe_view_box import ProbeViewBox
from .run_box import RunBox
from .converter import DataConversionBox
from .settings_box import SettingsBox
# from .sorter import filter_and_whiten, get_predicted_traces, KiloSortWorker
# from .sanity_plots import SanityPlotWidget

from .main import KilosortGUI
from .launch import launcher