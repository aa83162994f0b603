from pytorch_mppi.mppi import MPPI, SMPPI, KMPPI, MPPI_Batched
