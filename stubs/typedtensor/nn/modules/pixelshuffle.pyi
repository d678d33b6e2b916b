# torch.nn.modules.pixelshuffle's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
