# torch.nn.modules.padding's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
