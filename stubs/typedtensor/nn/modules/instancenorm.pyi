# torch.nn.modules.instancenorm's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
