
KM_TO_EVINV = 5.067730716156395e+09
GEV_TO_EV = 1.0e9  # eV / GeV
VCOEFF_EV = 7.63247e-14  # eV per (g/cm^3) per Y_e
A_COEFF = 1.52e-4  # A[eV^2] = A_COEFF * rho[g/cm^3] * Ye * E[GeV]

R_SUN = 6.957e5  # km
GF = 1.1663787e-5 * 1.0e-12  # GeV^-2 -> (MeV)^-2; adjust if your unit system differs
