__all__ = []

try:
    from .plot_item_buffer import PlotItemBuffer
    __all__.append('PlotItemBuffer')

    from .databuffer import DataBuffer
    __all__.append('DataBuffer')

    from .window import Window
    __all__.append('Window')

    from .common_plots import Actions, LenOfEpisodeTraining, Observations,\
        RewardPerEpisode, RewardPerStep

    __all__ += ['Actions', 'LenOfEpisodeTraining', 'Observations',
                'RewardPerEpisode', 'RewardPerStep']

except ImportError:
    pass
