# torch.nn.modules.fold's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
