# torch.nn.modules.channelshuffle's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
