
electron = 0
muon = 1
tau = 2
