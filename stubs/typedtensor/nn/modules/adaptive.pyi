# torch.nn.modules.adaptive's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
