"""Graph neural network implementations."""
# from alignn.models.alignn import ALIGNN, ALIGNNConfig
# from alignn.models.cgcnn import CGCNN, CGCNNConfig
# from alignn.models.dense_alignn import DenseALIGNN, DenseALIGNNConfig
# from alignn.models.densegcn import DenseGCN, DenseGCNConfig
# from alignn.models.gcn import SimpleGCN, SimpleGCNConfig
# from alignn.models.icgcnn import ICGCNNConfig, iCGCNN
