# torch.nn.modules.distance's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
